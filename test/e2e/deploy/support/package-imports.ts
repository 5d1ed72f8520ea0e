import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { readRepoFile, repoPath } from './repo.js';

/** A workspace's package.json fields the tests read. */
export interface WorkspaceManifest {
  name: string;
  dependencies?: Record<string, string>;
}

/** The package.json of a workspace directory such as `apps/gateway`. */
export function readManifest(dir: string): WorkspaceManifest {
  return JSON.parse(readRepoFile(dir, 'package.json')) as WorkspaceManifest;
}

/** The package a bare specifier names: `@scope/name/sub` → `@scope/name`, `pino/file` → `pino`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/**
 * Packages the compiled code of `dir/src` loads at run time: bare specifiers of imports,
 * re-exports and dynamic imports in non-test sources, leaving out `node:` builtins and imports
 * TypeScript erases (`import type`, or only `type` specifiers).
 */
export function runtimeImports(dir: string): Set<string> {
  const packages = new Set<string>();
  for (const file of sourceFiles(repoPath(dir, 'src'))) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const specifier = runtimeSpecifier(node);
      if (specifier !== undefined && !specifier.startsWith('.') && !specifier.startsWith('node:')) {
        packages.add(packageNameOf(specifier));
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return packages;
}

function runtimeSpecifier(node: ts.Node): string | undefined {
  if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
    const clause = node.importClause;
    if (clause?.isTypeOnly) return undefined;
    const bindings = clause?.namedBindings;
    const onlyTypes =
      clause !== undefined &&
      clause.name === undefined &&
      bindings !== undefined &&
      ts.isNamedImports(bindings) &&
      bindings.elements.length > 0 &&
      bindings.elements.every((element) => element.isTypeOnly);
    return onlyTypes ? undefined : node.moduleSpecifier.text;
  }
  if (
    ts.isExportDeclaration(node) &&
    node.moduleSpecifier !== undefined &&
    ts.isStringLiteral(node.moduleSpecifier)
  ) {
    return node.isTypeOnly ? undefined : node.moduleSpecifier.text;
  }
  if (
    ts.isCallExpression(node) &&
    node.expression.kind === ts.SyntaxKind.ImportKeyword &&
    node.arguments[0] !== undefined &&
    ts.isStringLiteral(node.arguments[0])
  ) {
    return node.arguments[0].text;
  }
  return undefined;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter(
      (entry) =>
        entry.isFile() && entry.name.endsWith('.ts') && !/\.(spec|test)\.ts$|\.d\.ts$/.test(entry.name),
    )
    .map((entry) => path.join(entry.parentPath, entry.name));
}

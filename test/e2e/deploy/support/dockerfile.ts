/** One Dockerfile instruction, continuation lines joined. */
export interface Instruction {
  keyword: string;
  /** `--name=value` flags (COPY --from, --chown, …). */
  flags: Record<string, string>;
  /** The arguments after the flags, as written. */
  args: string;
  line: number;
}

/** A build stage: its base, its name, and its instructions. */
export interface Stage {
  base: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** A parsed Dockerfile: global ARGs and stages in order. */
export interface Dockerfile {
  globalArgs: Instruction[];
  stages: Stage[];
}

/** Parses a Dockerfile (no heredocs): comments and parser directives dropped, `\` continuations joined. */
export function parseDockerfile(text: string): Dockerfile {
  const instructions: Instruction[] = [];
  let buffer = '';
  let startLine = 0;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (buffer === '' && (line === '' || line.startsWith('#'))) return;
    if (buffer !== '' && line.startsWith('#')) return;
    if (buffer === '') startLine = index + 1;
    if (line.endsWith('\\')) {
      buffer += `${line.slice(0, -1)} `;
      return;
    }
    buffer += line;
    instructions.push(parseInstruction(buffer, startLine));
    buffer = '';
  });
  const dockerfile: Dockerfile = { globalArgs: [], stages: [] };
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [base = '', as, name] = instruction.args.split(/\s+/);
      dockerfile.stages.push({ base, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (dockerfile.stages.length === 0) {
      if (instruction.keyword !== 'ARG')
        throw new Error(`line ${instruction.line}: ${instruction.keyword} before FROM`);
      dockerfile.globalArgs.push(instruction);
    } else {
      dockerfile.stages.at(-1)?.instructions.push(instruction);
    }
  }
  return dockerfile;
}

function parseInstruction(text: string, line: number): Instruction {
  const match = /^(\S+)\s*(.*)$/.exec(text);
  const keyword = (match?.[1] ?? '').toUpperCase();
  let rest = match?.[2] ?? '';
  const flags: Record<string, string> = {};
  for (;;) {
    const flag = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(rest);
    if (flag === null) break;
    flags[flag[1] ?? ''] = flag[2] ?? 'true';
    rest = rest.slice(flag[0].length);
  }
  return { keyword, flags, args: rest.trim(), line };
}

/** The sources and destination of a COPY/ADD (exec form `["a", "b"]` or shell form). */
export function copyPaths(instruction: Instruction): { sources: string[]; destination: string } {
  const parts = instruction.args.startsWith('[')
    ? (JSON.parse(instruction.args) as string[])
    : instruction.args.split(/\s+/).filter((part) => part !== '');
  const destination = parts.at(-1);
  if (destination === undefined || parts.length < 2)
    throw new Error(`line ${instruction.line}: COPY needs a source and a destination`);
  return { sources: parts.slice(0, -1), destination };
}

/** The exec-form array of an ENTRYPOINT or CMD (shell form is refused: signals would not reach node). */
export function execForm(instruction: Instruction): string[] {
  if (!instruction.args.startsWith('['))
    throw new Error(`line ${instruction.line}: ${instruction.keyword} must use the exec (JSON) form`);
  return JSON.parse(instruction.args) as string[];
}

/** Variable names an ENV instruction sets (`ENV A=1 B=2`, or the legacy `ENV A 1`). */
export function envNames(instruction: Instruction): string[] {
  if (!instruction.args.includes('=')) return [instruction.args.split(/\s+/)[0] ?? ''];
  return [...instruction.args.matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)=/g)].map((match) => match[1] ?? '');
}

/**
 * Whether `.dockerignore` patterns exclude a context-relative path (Go filepath.Match plus `**`;
 * a pattern also excludes everything below a directory it matches; later `!` patterns re-include).
 */
export function isDockerIgnored(patterns: readonly string[], relativePath: string): boolean {
  let ignored = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const pattern = (negated ? raw.slice(1) : raw).replace(/^\/+|\/+$/g, '');
    const regex = new RegExp(`^${globToRegex(pattern)}(/.*)?$`);
    if (regex.test(relativePath)) ignored = !negated;
  }
  return ignored;
}

/** Non-comment, non-empty lines of a .dockerignore file. */
export function dockerIgnorePatterns(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** A glob as a regex body: `**` any path, `*` within one segment, `?` one character. */
export function globToRegex(glob: string): string {
  let regex = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] ?? '';
    if (char === '*' && glob[i + 1] === '*') {
      regex += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (char === '*') regex += '[^/]*';
    else if (char === '?') regex += '[^/]';
    else regex += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return regex;
}

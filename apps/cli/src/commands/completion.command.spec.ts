import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../program.js';
import { completionScript, completionTree } from './completion.command.js';

const program = buildProgram({ stdout: process.stdout, stderr: process.stderr });
const script = completionScript('bash', 'modelgate', completionTree(program));

/** What bash offers after `line` (the last word is the one being completed), running the script. */
function complete(line: string): string[] {
  const words = line.split(' ');
  const shell = [
    script,
    `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})`,
    `COMP_CWORD=${words.length - 1}`,
    '_modelgate_complete',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  return execFileSync('bash', ['-c', shell], { encoding: 'utf8' }).split('\n').filter(Boolean).sort();
}

describe('modelgate completion', () => {
  it('refuses the options of registry calls, which would change nothing in the script', async () => {
    for (const [args, flags] of [
      [['--json', 'completion', 'bash'], '--json'],
      [['--registry', 'http://example.invalid', '-o', 'yaml', 'completion', 'zsh'], '--registry, --output'],
    ] as const) {
      const quiet = new PassThrough();
      await expect(
        buildProgram({ stdout: quiet, stderr: quiet }).parseAsync(args, { from: 'user' }),
      ).rejects.toThrow(`completion prints a shell script and calls no registry: drop ${flags}`);
    }
  });

  it('offers the top-level commands', () => {
    expect(complete('modelgate ')).toEqual(
      expect.arrayContaining(['model', 'endpoint', 'route', 'status', 'token', 'version', 'completion']),
    );
    expect(complete('modelgate mo')).toEqual(['model']);
  });

  it("offers a command's subcommands and options, global ones included", () => {
    expect(complete('modelgate model ')).toEqual(expect.arrayContaining(['add', 'list', 'policy', 'show']));
    expect(complete('modelgate model add --ta')).toEqual(['--task']);
    expect(complete('modelgate --json model li')).toEqual(['list']);
    expect(complete('modelgate model list --reg')).toEqual(['--registry']);
  });

  it("offers an option's choices after it", () => {
    expect(complete('modelgate model add --task ')).toEqual(
      expect.arrayContaining(['text-classification', 'feature-extraction', 'raw']),
    );
    expect(complete('modelgate model list -o ')).toEqual([
      'json',
      'jsonpath=',
      'name',
      'table',
      'wide',
      'yaml',
    ]);
  });

  it('writes a zsh script that loads the same function through bashcompinit', () => {
    const zsh = completionScript('zsh', 'modelgate', completionTree(program));
    expect(zsh).toContain('autoload -U +X bashcompinit && bashcompinit');
    expect(zsh).toContain('complete -F _modelgate_complete modelgate');
  });
});

describe('modelgate completion fish', () => {
  const fish = completionScript('fish', 'modelgate', completionTree(program));

  const file = join(mkdtempSync(join(tmpdir(), 'modelgate-fish-')), 'modelgate.fish');
  writeFileSync(file, fish);

  /** What fish offers for `line`, running the script in a real fish (Debian's package; .ci/run installs it). */
  function completeInFish(line: string): string[] {
    const command = `source ${JSON.stringify(file)}; complete -C ${JSON.stringify(line)}`;
    return execFileSync('fish', ['--no-config', '-c', command], { encoding: 'utf8' })
      .split('\n')
      .map((entry) => entry.split('\t')[0] ?? '')
      .filter(Boolean)
      .sort();
  }

  it('offers the top-level commands and a command’s subcommands', () => {
    expect(completeInFish('modelgate ')).toEqual(
      expect.arrayContaining(['model', 'endpoint', 'route', 'status', 'token', 'version', 'completion']),
    );
    expect(completeInFish('modelgate mo')).toEqual(['model']);
    expect(completeInFish('modelgate model ')).toEqual(['add', 'list', 'policy', 'remove', 'show']);
    expect(completeInFish('modelgate --json model li')).toEqual(['list']);
  });

  it('offers a command’s options, global ones included, and an option’s choices after it', () => {
    expect(completeInFish('modelgate model add --ta')).toEqual(['--task']);
    expect(completeInFish('modelgate endpoint set x --post')).toEqual(['--postprocessing']);
    expect(completeInFish('modelgate model list --reg')).toEqual(['--registry']);
    expect(completeInFish('modelgate model add --task ')).toEqual(
      expect.arrayContaining(['text-classification', 'feature-extraction', 'raw']),
    );
    expect(completeInFish('modelgate model list -o ')).toEqual([
      'json',
      'jsonpath=',
      'name',
      'table',
      'wide',
      'yaml',
    ]);
  });
});

import { execFileSync } from 'node:child_process';
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
    expect(complete('modelgate model list -o ')).toEqual(['json', 'name', 'table', 'wide', 'yaml']);
  });

  it('writes a zsh script that loads the same function through bashcompinit', () => {
    const zsh = completionScript('zsh', 'modelgate', completionTree(program));
    expect(zsh).toContain('autoload -U +X bashcompinit && bashcompinit');
    expect(zsh).toContain('complete -F _modelgate_complete modelgate');
  });
});

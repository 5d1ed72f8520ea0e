import { type Command, type Option } from 'commander';
import { UsageError } from '../cli-errors.js';

/** The shells `modelgate completion` writes a script for. */
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;

/** One command of the tree as completion sees it: its words and its options' flags and choices. */
export interface CompletionNode {
  /** Subcommand names from the root, e.g. ['model', 'add']; [] for the program itself. */
  path: string[];
  subcommands: string[];
  options: { flags: string[]; choices?: readonly string[]; takesValue?: boolean }[];
}

/** Every command of `program`, depth first, with the program's own options on each (they are global). */
export function completionTree(program: Command): CompletionNode[] {
  const globals = program.options.map(describeOption);
  const nodes: CompletionNode[] = [];
  const visit = (command: Command, path: string[]): void => {
    const own = command === program ? [] : command.options.map(describeOption);
    nodes.push({
      path,
      subcommands: command.commands.map((sub) => sub.name()),
      options: [...own, ...globals, { flags: ['--help'] }],
    });
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return nodes;
}

function describeOption(option: Option): CompletionNode['options'][number] {
  const flags = [option.short, option.long].filter((flag): flag is string => flag !== undefined);
  const takesValue = option.required || option.optional;
  return {
    flags,
    ...(option.argChoices ? { choices: option.argChoices } : {}),
    ...(takesValue ? { takesValue } : {}),
  };
}

/**
 * A bash completion script for `name` over `tree`: the words typed so far (options and their
 * values skipped) pick the command; it offers that command's subcommands and options, or an
 * option's choices right after the option. zsh loads the same function through bashcompinit.
 */
export function completionScript(
  shell: (typeof COMPLETION_SHELLS)[number],
  name: string,
  tree: CompletionNode[],
): string {
  if (shell === 'fish') return fishCompletionScript(name, tree);
  const fn = `_${name.replace(/[^a-zA-Z0-9_]/g, '_')}_complete`;
  const key = (path: string[]) => quote(path.join(' '));
  const known = tree.filter((node) => node.path.length > 0).map((node) => key(node.path));
  const words = tree.map(
    (node) =>
      `    ${key(node.path)}) words=${quote([...node.subcommands, ...node.options.flatMap((o) => o.flags)].join(' '))} ;;`,
  );
  const choices = new Map<string, readonly string[]>();
  for (const node of tree)
    for (const option of node.options)
      if (option.choices) for (const flag of option.flags) choices.set(flag, option.choices);
  const choiceCases = [...choices].map(
    ([flag, values]) => `    ${quote(flag)}) words=${quote(values.join(' '))} ;;`,
  );
  const lines = [
    `# ${name} completion for ${shell}: source it, e.g. \`source <(${name} completion ${shell})\`.`,
    ...(shell === 'zsh' ? ['autoload -U +X bashcompinit && bashcompinit'] : []),
    `${fn}() {`,
    '  local cur prev word path candidate i words=""',
    '  cur="${COMP_WORDS[COMP_CWORD]}"',
    '  prev="${COMP_WORDS[COMP_CWORD-1]}"',
    '  case "$prev" in',
    ...choiceCases,
    '  esac',
    '  if [ -n "$words" ]; then COMPREPLY=($(compgen -W "$words" -- "$cur")); return 0; fi',
    '  path=""',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    word="${COMP_WORDS[i]}"',
    '    case "$word" in -*) continue ;; esac',
    '    candidate="${path:+$path }$word"',
    '    case "$candidate" in',
    `      ${known.length > 0 ? known.join('|') : "''"}) path="$candidate" ;;`,
    '    esac',
    '  done',
    '  case "$path" in',
    ...words,
    '  esac',
    '  COMPREPLY=($(compgen -W "$words" -- "$cur"))',
    '}',
    `complete -F ${fn} ${name}`,
    '',
  ];
  return lines.join('\n');
}

/**
 * A fish completion script: `__<name>_path` finds the command typed so far the way the bash
 * script does (known command words only, options and their values skipped), and one `complete`
 * line per command offers its subcommands, and per option its flags, with its choices after it.
 */
function fishCompletionScript(name: string, tree: CompletionNode[]): string {
  const fn = `__${name.replace(/[^a-zA-Z0-9_]/g, '_')}`;
  const known = tree.filter((node) => node.path.length > 0).map((node) => fishQuote(node.path.join(' ')));
  const lines = [
    `# ${name} completion for fish: \`${name} completion fish | source\`, or save it as ~/.config/fish/completions/${name}.fish.`,
    `function ${fn}_path`,
    `    set -l known ${known.join(' ')}`,
    "    set -l path ''",
    '    for word in (commandline -opc)[2..-1]',
    "        string match -q -- '-*' $word; and continue",
    '        set -l candidate (string trim -- "$path $word")',
    '        contains -- $candidate $known; and set path $candidate',
    '    end',
    '    echo $path',
    'end',
    `function ${fn}_at`,
    `    set -l path (${fn}_path)`,
    '    test "$path" = "$argv[1]"',
    'end',
    `complete -c ${name} -f`,
  ];
  for (const node of tree) {
    const at = `-n ${fishQuote(`${fn}_at ${fishQuote(node.path.join(' '))}`)}`;
    if (node.subcommands.length > 0)
      lines.push(`complete -c ${name} ${at} -a ${fishQuote(node.subcommands.join(' '))}`);
    for (const option of node.options) {
      const flags = option.flags
        .map((flag) => (flag.startsWith('--') ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`))
        .join(' ');
      const value = option.choices
        ? ` -x -a ${fishQuote(option.choices.join(' '))}`
        : option.takesValue
          ? ' -r'
          : '';
      lines.push(`complete -c ${name} ${at} ${flags}${value}`);
    }
  }
  lines.push('');
  return lines.join('\n');
}

/** `'text'` for fish: single quotes, with backslashes and single quotes escaped. */
function fishQuote(text: string): string {
  return `'${text.replace(/[\\']/g, (char) => `\\${char}`)}'`;
}

/** `'text'` for the shell: single quotes, with any single quote closed, escaped and reopened. */
function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The program's options that apply to registry calls and their output, with the flag that sets each. */
const GLOBAL_OPTIONS = [
  ['registry', '--registry'],
  ['output', '--output'],
  ['json', '--json'],
  ['headers', '--no-headers'],
] as const;

/** `modelgate completion bash|zsh`. */
export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .argument('<shell>', COMPLETION_SHELLS.join(' | '))
    .description(
      'print a shell completion script: `source <(modelgate completion bash)`, or add that line to ~/.bashrc (~/.zshrc for zsh); fish: `modelgate completion fish | source`',
    )
    .action((shell: string, _options: unknown, command: Command) => {
      if (!(COMPLETION_SHELLS as readonly string[]).includes(shell)) {
        throw new UsageError(`no completion for shell '${shell}': use ${COMPLETION_SHELLS.join(' or ')}`);
      }
      const root = command.parent ?? command;
      // The script is the same whatever the registry or the output format: such an option would do nothing.
      const given = GLOBAL_OPTIONS.filter(([name]) => root.getOptionValueSource(name) === 'cli');
      if (given.length > 0) {
        throw new UsageError(
          `completion prints a shell script and calls no registry: drop ${given.map(([, flag]) => flag).join(', ')}`,
        );
      }
      command
        .configureOutput()
        .writeOut?.(
          completionScript(shell as (typeof COMPLETION_SHELLS)[number], root.name(), completionTree(root)),
        );
    });
}

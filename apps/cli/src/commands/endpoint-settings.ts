/**
 * `--preprocessing KEY=VALUE …` and `--postprocessing KEY=VALUE …` of `endpoint add|set`: each
 * pair becomes one key of the endpoint's preprocessing or postprocessing, checked against the
 * admin API's own schema here, so a misspelt key or a wrong value is a usage error naming the key
 * and what it takes, before anything is sent. Values: `true`/`false`, an integer, `null` (or
 * `none`) to clear a key back to its default, or a word (`pooling=cls`). Pure: no I/O.
 */
import { type UpdateEndpointRequest, updateEndpointSchema } from '@modelgate/contracts';
import { type z } from 'zod';
import { UsageError } from '../cli-errors.js';

export type SettingsSection = 'preprocessing' | 'postprocessing' | 'generation';

type SectionSchema = z.ZodObject<z.ZodRawShape>;

/** The admin API's partial object schema of one section of `PATCH /v1/endpoints/:name`. */
function sectionSchema(section: SettingsSection): SectionSchema {
  return (updateEndpointSchema.shape[section] as unknown as z.ZodOptional<SectionSchema>).unwrap();
}

/** The keys one section takes, for messages and help. */
export function settingsKeys(section: SettingsSection): string[] {
  return Object.keys(sectionSchema(section).shape);
}

function parseValue(text: string): unknown {
  if (text === 'null' || text === 'none') return null;
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^-?[0-9]+(\.[0-9]+)?$/.test(text)) return Number(text);
  return text;
}

/** Commander's collector for a repeatable `KEY=VALUE` option. */
export function collectPair(text: string, previous: string[] = []): string[] {
  return [...previous, text];
}

/**
 * The section's keys from `pairs` (`maxTokens=128`), checked; a UsageError naming the key and the
 * keys the section takes otherwise. `allowNull` false (endpoint creation) refuses `null`.
 */
export function parseSettings(
  section: SettingsSection,
  pairs: readonly string[],
  options: { allowNull?: boolean } = {},
): Record<string, unknown> {
  const keys = settingsKeys(section);
  const settings: Record<string, unknown> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals <= 0 || equals === pair.length - 1) {
      throw new UsageError(`--${section} '${pair}': expected KEY=VALUE, e.g. ${exampleOf(section)}`);
    }
    const key = pair.slice(0, equals);
    if (!keys.includes(key)) {
      throw new UsageError(`--${section}: unknown key '${key}'; it takes ${keys.join(', ')}`);
    }
    if (key in settings) throw new UsageError(`--${section}: '${key}' given twice`);
    const value = parseValue(pair.slice(equals + 1));
    if (value === null && options.allowNull === false) {
      throw new UsageError(`--${section} ${key}: null clears a key of an existing endpoint (endpoint set)`);
    }
    settings[key] = value;
  }
  const checked = sectionSchema(section).safeParse(settings);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const key = String(issue?.path[0] ?? '');
    throw new UsageError(`--${section} ${key}: ${issue?.message ?? 'invalid value'}`);
  }
  return checked.data;
}

function exampleOf(section: SettingsSection): string {
  return { preprocessing: 'maxTokens=128', postprocessing: 'normalize=true', generation: 'temperature=0.7' }[
    section
  ];
}

/** The PATCH body's two sections from the options given (absent when no pair was). */
export function settingsUpdate(
  preprocessing: readonly string[] | undefined,
  postprocessing: readonly string[] | undefined,
  generation?: readonly string[],
): Pick<UpdateEndpointRequest, SettingsSection> {
  return {
    ...(preprocessing?.length ? { preprocessing: parseSettings('preprocessing', preprocessing) } : {}),
    ...(postprocessing?.length ? { postprocessing: parseSettings('postprocessing', postprocessing) } : {}),
    ...(generation?.length ? { generation: parseSettings('generation', generation) } : {}),
  };
}

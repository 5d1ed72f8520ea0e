/**
 * `hf://<org>/<name>[@<revision>]`: a model repository of the Hugging Face Hub at one revision
 * (a branch, a tag or a commit; `main` when left out). Files are fetched from the Hub's resolve
 * URLs, `<endpoint>/<org>/<name>/resolve/<revision>/<path>`, as huggingface_hub does.
 */
import { ErrorCode } from '../errors/error-code.js';
import { ModelgateError } from '../errors/modelgate-error.js';

/** A Hub model repository at one revision. */
export interface HfModelRef {
  /** `<org>/<name>`. */
  repo: string;
  org: string;
  name: string;
  /** Branch, tag or commit hash; `main` when the URI names none. */
  revision: string;
}

/** The revision of a URI without `@<revision>`. */
export const HF_DEFAULT_REVISION = 'main';

/** The public Hub; HF_ENDPOINT replaces it (a mirror, or a server laid out like the Hub). */
export const HF_DEFAULT_ENDPOINT = 'https://huggingface.co';

const SCHEME = 'hf://';
const EXAMPLE = 'hf://distilbert/distilbert-base-uncased-finetuned-sst-2-english@main';
/** The Hub's rule for user, organization and repository names (huggingface_hub's validate_repo_id). */
const REPO_PART = /^[A-Za-z0-9_](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9_])?$/;
/** Git ref names and commit hashes: no spaces, no `~^:?*[\`, no `..` or `//` (checked apart). */
const REVISION = /^[A-Za-z0-9._/-]{1,255}$/;

/** True when `uri` uses the hf:// scheme (any case), whether or not it is well formed. */
export function isHfUri(uri: string): boolean {
  return uri.slice(0, SCHEME.length).toLowerCase() === SCHEME;
}

/**
 * Parses `hf://<org>/<name>[@<revision>]`. Throws INVALID_ARGUMENT (field `uri`) saying what is
 * wrong: another scheme, a missing org or name, a file path after the name, characters the Hub
 * does not allow, an empty or malformed revision, a query or fragment.
 */
export function parseHfUri(uri: string): HfModelRef {
  if (!isHfUri(uri)) throw refuse(uri, `is not an hf:// URI (expected ${EXAMPLE})`);
  const rest = uri.slice(SCHEME.length);
  if (/[?#]/.test(rest)) throw refuse(uri, 'has a query or fragment; hf:// URIs take neither');
  const at = rest.indexOf('@');
  const path = at === -1 ? rest : rest.slice(0, at);
  const revision = at === -1 ? HF_DEFAULT_REVISION : rest.slice(at + 1);
  const parts = path.split('/');
  if (parts.length < 2 || parts.some((part) => part === '')) {
    throw refuse(uri, `must name a repository as hf://<org>/<name>[@<revision>], e.g. ${EXAMPLE}`);
  }
  if (parts.length > 2) {
    throw refuse(
      uri,
      `names a path inside the repository; give the repository only (hf://${parts[0]}/${parts[1]}), ` +
        'the registry fetches onnx/model.onnx and the tokenizer files itself',
    );
  }
  const [org = '', name = ''] = parts;
  for (const [what, part] of [
    ['org', org],
    ['name', name],
  ] as const) {
    if (!REPO_PART.test(part) || part.includes('--') || part.includes('..')) {
      throw refuse(
        uri,
        `has an invalid ${what} "${part.slice(0, 100)}": the Hub allows letters, digits, "-", "_" and "." ` +
          '(no "--" or "..", and "-" or "." not at either end), up to 96 characters',
      );
    }
  }
  if (revision === '') throw refuse(uri, 'has an empty revision after "@" (leave "@" out for main)');
  if (
    !REVISION.test(revision) ||
    revision.includes('..') ||
    revision.includes('//') ||
    revision.startsWith('/') ||
    revision.endsWith('/') ||
    revision.endsWith('.lock')
  ) {
    throw refuse(
      uri,
      `has an invalid revision "${revision.slice(0, 80)}": give a branch, tag or commit hash ` +
        '(letters, digits, "-", "_", ".", "/")',
    );
  }
  return { repo: `${org}/${name}`, org, name, revision };
}

/** The canonical form of `ref`, its revision always written: `hf://org/name@main`. */
export function formatHfUri(ref: HfModelRef): string {
  return `${SCHEME}${ref.repo}@${ref.revision}`;
}

/**
 * The resolve URL of `file` (a path inside the repository, e.g. `onnx/model.onnx`) at `ref`'s
 * revision under `endpoint`; the revision is one path segment (`refs%2Fpr%2F1`), as the Hub wants.
 */
export function hfResolveUrl(endpoint: string, ref: HfModelRef, file: string): string {
  const base = endpoint.replace(/\/+$/, '');
  const path = file.split('/').map(encodeURIComponent).join('/');
  return `${base}/${ref.org}/${ref.name}/resolve/${encodeURIComponent(ref.revision)}/${path}`;
}

function refuse(uri: string, message: string): ModelgateError {
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${uri.slice(0, 200)} ${message}`, { field: 'uri' });
}

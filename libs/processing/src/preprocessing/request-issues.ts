// zod issues of a request body as people read them: one issue per unknown field, and the
// element that broke a `string | string[]` union rather than the union as a whole.
import { type ValidationIssue, formatIssuePath } from '@modelgate/contracts';
import { type z } from 'zod';

type Issue = z.core.$ZodIssue;

function flatten(issue: Issue, prefix: readonly PropertyKey[]): ValidationIssue[] {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      path: formatIssuePath([...path, key]),
      message: 'is not a known field',
    }));
  }
  if (issue.code === 'invalid_union') {
    // The branch that got furthest (an issue below the union's own path) says what is wrong.
    const branch = issue.errors.find((errors) => errors.some((inner) => inner.path.length > 0));
    if (branch !== undefined) return branch.flatMap((inner) => flatten(inner, path));
  }
  return [{ path: formatIssuePath(path), message: issue.message }];
}

/** Every issue of a failed request parse as {path, message}, unknown keys named one by one. */
export function requestIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.flatMap((issue) => flatten(issue, []));
}

/** What `parameters` is, in the docs of every body that has it. */
export const PARAMETERS_DESCRIPTION = 'Per-request options';

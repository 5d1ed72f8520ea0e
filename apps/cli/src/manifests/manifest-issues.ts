import { formatIssuePath } from '@modelgate/contracts';
import { type z } from 'zod';

/** A document's schema issues as people read them: the field's path, unknown fields by name. */
export function manifestProblems(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.length === 0 ? undefined : formatIssuePath(issue.path);
      return issue.code === 'unrecognized_keys'
        ? `${issue.keys.map((key) => (path === undefined ? key : `${path}.${key}`)).join(', ')}: is not a known field`
        : `${path ?? 'document'}: ${issue.message}`;
    })
    .join('; ');
}

import { type z } from 'zod';
import { ErrorCode } from '../errors/error-code.js';
import { ModelgateError, type ValidationIssue } from '../errors/modelgate-error.js';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A zod issue path as people read it: `models[0].batching.maxBatchSize`; `(root)` when empty. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && IDENTIFIER.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out === '' ? '(root)' : out;
}

/** Every issue of a zod error as {path, message}, in the order zod found them. */
export function toValidationIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({ path: formatIssuePath(issue.path), message: issue.message }));
}

/** The INVALID_ARGUMENT error for failed validation of `subject`, listing every issue in its message. */
export function validationError(subject: string, issues: readonly ValidationIssue[]): ModelgateError {
  const list = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  const field = issues[0]?.path;
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, `invalid ${subject}: ${list}`, {
    issues,
    ...(field === undefined ? {} : { field }),
  });
}

/** The outcome of a safe parse: the data, or the error that parsing would have thrown. */
export type SafeParseOutcome<T> =
  { success: true; data: T } | { success: false; error: ModelgateError; issues: ValidationIssue[] };

/** Validates `value` with `schema`; never throws. `subject` names the thing in the error message. */
export function safeParseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  subject: string,
): SafeParseOutcome<z.output<S>> {
  const result = schema.safeParse(value);
  if (result.success) return { success: true, data: result.data };
  const issues = toValidationIssues(result.error);
  return { success: false, error: validationError(subject, issues), issues };
}

/** Validates `value` with `schema`, throwing a ModelgateError(INVALID_ARGUMENT) that lists every issue. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, subject: string): z.output<S> {
  const outcome = safeParseWith(schema, value, subject);
  if (!outcome.success) throw outcome.error;
  return outcome.data;
}

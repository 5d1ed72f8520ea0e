/** Who makes a change: a token holder through the API, or the registry itself. */
export interface Actor {
  /** `token:<name>` or `system:<part>`. */
  name: string;
  /** The API request that made the change, for the audit trail. */
  requestId?: string;
}

/** The registry's own actor for changes it makes by itself (e.g. model preparation). */
export function systemActor(part: string): Actor {
  return { name: `system:${part}` };
}

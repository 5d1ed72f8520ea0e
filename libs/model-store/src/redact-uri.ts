/**
 * The URI as it may appear in errors and logs: user info and the query string are dropped, since
 * they often carry credentials (basic auth, pre-signed URL signatures). Unparseable input is
 * shortened rather than echoed whole.
 */
export function redactUri(uri: string): string {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return uri.length > 80 ? `${uri.slice(0, 80)}…` : uri;
  }
  const hadQuery = url.search !== '';
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return hadQuery ? `${url.href}?…` : url.href;
}

// Which forward proxy an outbound request goes through, as curl and most HTTP clients read the
// environment: HTTPS_PROXY for https:// targets, HTTP_PROXY for http://, none for a host NO_PROXY
// names (the uppercase names: the apps refuse a lowercase one that differs). Pure: the caller
// passes the environment (or the config parsed from it).

/** The proxy settings of a process, read once from its environment. */
export interface ProxySettings {
  /** Proxy of https:// targets. */
  https?: URL;
  /** Proxy of http:// targets. */
  http?: URL;
  /** NO_PROXY entries, lowercased: `*`, host names (a leading dot or not: the host and its subdomains), IP addresses, each optionally with `:port`. */
  noProxy: string[];
}

/** The proxy variables of an environment, or of an app's config parsed from it. */
export interface ProxyEnv {
  HTTPS_PROXY?: string | undefined;
  HTTP_PROXY?: string | undefined;
  NO_PROXY?: string | undefined;
}

const pick = (env: ProxyEnv, name: keyof ProxyEnv): string | undefined => {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
};

/**
 * The proxy settings in `env` (HTTPS_PROXY, HTTP_PROXY, NO_PROXY). A
 * proxy URL must be http:// (a proxy spoken to in TLS is not supported); a proxy given without a
 * scheme is taken as http://. Throws naming the variable for a value that is not a URL.
 */
export function readProxySettings(env: ProxyEnv): ProxySettings {
  const proxy = (name: 'HTTPS_PROXY' | 'HTTP_PROXY'): URL | undefined => {
    const value = pick(env, name);
    if (value === undefined) return undefined;
    let url: URL;
    try {
      url = new URL(value.includes('://') ? value : `http://${value}`);
    } catch {
      throw new Error(`${name} must be a proxy URL such as http://proxy:3128, got ${JSON.stringify(value)}`);
    }
    if (url.protocol !== 'http:') {
      throw new Error(`${name}: only http:// proxies are supported (CONNECT tunnels), got ${url.protocol}//`);
    }
    return url;
  };
  const https = proxy('HTTPS_PROXY');
  const http = proxy('HTTP_PROXY');
  const noProxy = (pick(env, 'NO_PROXY') ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  return { ...(https ? { https } : {}), ...(http ? { http } : {}), noProxy };
}

/** Whether any proxy is set. */
export function hasProxy(settings: ProxySettings | undefined): boolean {
  return settings?.https !== undefined || settings?.http !== undefined;
}

/** The proxy `target` goes through, or undefined to connect directly. */
export function proxyFor(target: URL, settings: ProxySettings | undefined): URL | undefined {
  if (!settings) return undefined;
  const proxy =
    target.protocol === 'https:' ? settings.https : target.protocol === 'http:' ? settings.http : undefined;
  if (proxy === undefined) return undefined;
  const host = target.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  for (const entry of settings.noProxy) {
    if (entry === '*') return undefined;
    const [name = '', entryPort] = splitPort(entry);
    if (entryPort !== undefined && entryPort !== port) continue;
    const bare = name.replace(/^\*?\./, '');
    if (host === bare || host.endsWith(`.${bare}`)) return undefined;
  }
  return proxy;
}

/** `host:port`, `[v6]:port`, or a bare host (an IPv6 address without brackets has no port). */
function splitPort(entry: string): [string, string | undefined] {
  const bracketed = /^\[(.*)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return [bracketed[1] ?? '', bracketed[2]];
  const colons = entry.split(':').length - 1;
  if (colons === 1) {
    const [host = '', port] = entry.split(':');
    return /^\d+$/.test(port ?? '') ? [host, port] : [entry, undefined];
  }
  return [entry, undefined];
}

import { describe, expect, it } from 'vitest';
import { hasProxy, proxyFor, readProxySettings } from './outbound-proxy.js';

const settings = readProxySettings({
  HTTPS_PROXY: 'http://proxy.corp:3128',
  HTTP_PROXY: 'proxy.corp:8080',
  NO_PROXY: 'registry, .svc.cluster.local,10.0.0.7, localhost:9000,[::1]',
});

describe('outbound proxy settings', () => {
  it('reads the proxies per scheme, a bare host as http://', () => {
    expect(settings.https?.href).toBe('http://proxy.corp:3128/');
    expect(settings.http?.href).toBe('http://proxy.corp:8080/');
    expect(hasProxy(settings)).toBe(true);
    expect(hasProxy(readProxySettings({}))).toBe(false);
  });

  it('sends https targets to HTTPS_PROXY and http ones to HTTP_PROXY', () => {
    expect(proxyFor(new URL('https://huggingface.co/x'), settings)?.port).toBe('3128');
    expect(proxyFor(new URL('http://models.example.com/m.onnx'), settings)?.port).toBe('8080');
    expect(
      proxyFor(new URL('https://x.example'), readProxySettings({ HTTP_PROXY: 'http://p:1' })),
    ).toBeUndefined();
  });

  it('connects directly to what NO_PROXY names: hosts and their subdomains, addresses, ports', () => {
    const direct = (url: string) => proxyFor(new URL(url), settings) === undefined;
    expect(direct('http://registry:8081/v1/artifacts')).toBe(true);
    expect(direct('http://s3.svc.cluster.local/bucket')).toBe(true);
    expect(direct('http://svc.cluster.local/')).toBe(true);
    expect(direct('http://10.0.0.7:9000/')).toBe(true);
    expect(direct('http://localhost:9000/')).toBe(true);
    expect(direct('http://localhost:9001/')).toBe(false);
    expect(direct('http://[::1]:8080/')).toBe(true);
    expect(direct('https://notregistry/')).toBe(false);
    expect(
      proxyFor(new URL('https://any.host/'), readProxySettings({ HTTPS_PROXY: 'http://p:1', NO_PROXY: '*' })),
    ).toBeUndefined();
  });

  it('refuses a proxy that is not a URL, or spoken to in TLS, naming the variable', () => {
    expect(() => readProxySettings({ HTTPS_PROXY: 'http://' })).toThrow(/HTTPS_PROXY must be a proxy URL/);
    expect(() => readProxySettings({ HTTP_PROXY: 'https://p:443' })).toThrow(
      /HTTP_PROXY: only http:\/\/ proxies/,
    );
  });
});

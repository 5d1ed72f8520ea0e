import { existsSync } from 'node:fs';
import { dialableHost } from '@modelgate/config-sync';
import { parseConfigSnapshot } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { gatewayEventLoops, loadGatewayConfig } from '../../../apps/gateway/src/gateway.config.js';
import { loadWorkerConfig } from '../../../apps/worker/src/worker.config.js';
import { parseDockerfile } from './support/dockerfile.js';
import { APP_ENV_KEYS, type AppName, readRepoFile, repoPath, sourceOfBuiltFile } from './support/repo.js';

interface ComposeService {
  image?: string;
  build?: { context?: string; dockerfile?: string; target?: string; args?: Record<string, string> };
  command?: string[] | string;
  entrypoint?: string[] | string;
  environment?: Record<string, string | number | boolean | null>;
  env_file?: unknown;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test?: string[] | string; interval?: string; timeout?: string; retries?: number };
  depends_on?: Record<string, { condition?: string }>;
  deploy?: {
    replicas?: number;
    resources?: {
      reservations?: { devices?: { driver?: string; count?: number; capabilities?: string[] }[] };
    };
  };
  profiles?: string[];
  restart?: string;
  container_name?: string;
  hostname?: string;
  stop_grace_period?: string;
  read_only?: boolean;
  networks?: { default?: { aliases?: string[] } };
}

interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

const composeText = readRepoFile('docker-compose.yml');
const compose = parse(composeText, { merge: true }) as ComposeFile;
const services = Object.entries(compose.services);
const exampleEnv = new Map(
  readRepoFile('deploy.env.example')
    .split('\n')
    .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const),
);
const dockerfileStages = new Set(
  parseDockerfile(readRepoFile('docker', 'Dockerfile')).stages.map((stage) => stage.name),
);

/** The apps whose config schemas a service's environment must match, from the image it builds. */
function appsOf(service: ComposeService): AppName[] {
  const target = service.build?.target ?? '';
  if (target === 'registry' || target === 'gateway') return [target];
  if (target === 'gateway-colocated') return ['gateway', 'worker'];
  return target.startsWith('worker') ? ['worker'] : [];
}

/** The compose profiles services name; a service without profiles runs under every one. */
const profiles = [...new Set(services.flatMap(([, service]) => service.profiles ?? []))];

/** The services `docker compose up` starts with COMPOSE_PROFILES=`profile`. */
function servicesUnder(profile: string): [string, ComposeService][] {
  return services.filter(([, service]) => (service.profiles ?? [profile]).includes(profile));
}

/** Services that run until stopped (the one-shot migration exits). */
const longRunning = services.filter(([, service]) => service.restart !== 'no');

/** Seconds of a compose duration such as `45s`, `1m30s`, `500ms`. */
function seconds(duration: string): number {
  let total = 0;
  for (const [, amount, unit] of duration.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    total += Number(amount) * { ms: 0.001, s: 1, m: 60, h: 3600 }[unit as 'ms' | 's' | 'm' | 'h'];
  }
  return total;
}

/** A value with `${VAR:-default}` replaced by its default (host ports, for clash checks). */
function withDefaults(value: string): string {
  return value.replace(/\$\{\w+:-([^}]*)\}/g, '$1');
}

/** A service's environment as its container sees it with .env filled in: defaults, else `set-in-env`. */
function containerEnv(service: ComposeService | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service?.environment ?? {}).map(([key, value]) => [
      key,
      String(value).replace(
        /\$\{\w+(?::-([^}]*))?[^}]*\}/g,
        (_, fallback?: string) => fallback ?? 'set-in-env',
      ),
    ]),
  );
}

describe('docker-compose.yml', () => {
  it('gives every service an image or a build of a docker/Dockerfile target', () => {
    for (const [name, service] of services) {
      expect(service.image ?? service.build, name).toBeDefined();
      if (service.build === undefined) continue;
      expect(existsSync(repoPath(service.build.dockerfile ?? 'Dockerfile')), name).toBe(true);
      expect(dockerfileStages.has(service.build.target), `${name}: target ${service.build.target}`).toBe(
        true,
      );
    }
  });

  it('healthchecks every long-running service with a test, an interval and a timeout', () => {
    for (const [name, service] of longRunning) {
      expect(service.healthcheck?.test, name).toBeDefined();
      expect(service.healthcheck?.interval, name).toMatch(/^\d+(ms|s|m)$/);
      expect(service.healthcheck?.timeout, name).toMatch(/^\d+(ms|s|m)$/);
    }
  });

  it('orders start-up with valid depends_on conditions on services that can meet them', () => {
    const conditions = new Set(['service_started', 'service_healthy', 'service_completed_successfully']);
    for (const [name, service] of services) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        const target = compose.services[dependency];
        expect(target, `${name} depends on unknown ${dependency}`).toBeDefined();
        expect(conditions.has(condition ?? ''), `${name} → ${dependency}: ${condition}`).toBe(true);
        if (condition === 'service_healthy')
          expect(target?.healthcheck, `${dependency} has no healthcheck`).toBeDefined();
      }
    }
  });

  it('migrates once Postgres is healthy, and starts the registry only after the migration succeeded', () => {
    const { migrate, registry } = compose.services;
    expect(migrate?.depends_on?.postgres?.condition).toBe('service_healthy');
    expect(migrate?.restart).toBe('no');
    const command = [migrate?.entrypoint, migrate?.command].flat().filter((part) => part !== undefined);
    expect(command).toEqual(['node', 'apps/registry/dist/database/migrate.js', 'up']);
    expect(sourceOfBuiltFile(command[1] ?? '')).toBeDefined();
    expect(registry?.depends_on?.migrate?.condition).toBe('service_completed_successfully');
    expect(registry?.depends_on?.postgres?.condition).toBe('service_healthy');
    expect(registry?.depends_on?.redis?.condition).toBe('service_healthy');
  });

  it('runs two gateway replicas without a fixed host port or container name, behind one published port', () => {
    const gateway = compose.services.gateway;
    expect(gateway?.deploy?.replicas).toBe(2);
    expect(gateway?.container_name).toBeUndefined();
    expect(gateway?.ports ?? []).toEqual([]);
    expect(compose.services.edge?.ports).toEqual([
      '${GATEWAY_PUBLISHED_PORT:-8080}:8080',
      '${GATEWAY_GRPC_PUBLISHED_PORT:-8001}:8001',
    ]);
    expect(readRepoFile('docker', 'compose', 'edge.conf')).toMatch(
      /set \$gateway_grpc grpc:\/\/gateway:8003;/,
    );
    expect(gateway?.environment?.GATEWAY_GRPC_PORT).toBe(8003);
    expect(readRepoFile('docker', 'compose', 'edge.conf')).toMatch(/set \$gateway http:\/\/gateway:8080;/);
  });

  it('publishes no host port twice under any profile', () => {
    expect(profiles.sort()).toEqual(['cpu', 'gpu', 'small']);
    for (const profile of profiles) {
      const hostPorts = servicesUnder(profile).flatMap(([, service]) =>
        (service.ports ?? []).map((port) => withDefaults(port).split(':').slice(0, -1).join(':')),
      );
      expect(new Set(hostPorts).size, profile).toBe(hostPorts.length);
    }
  });

  it('runs one co-located gateway and no separate worker or edge under profile small', () => {
    expect(
      servicesUnder('small')
        .map(([name]) => name)
        .sort(),
    ).toEqual(['gateway-colocated', 'migrate', 'postgres', 'redis', 'registry']);
    for (const profile of ['gpu', 'cpu'])
      expect(
        servicesUnder(profile).map(([name]) => name),
        profile,
      ).not.toContain('gateway-colocated');
    const colocated = compose.services['gateway-colocated'];
    expect(colocated?.build?.target).toBe('gateway-colocated');
    expect(colocated?.ports).toEqual([
      '${GATEWAY_PUBLISHED_PORT:-8080}:8080',
      '${GATEWAY_GRPC_PUBLISHED_PORT:-8001}:8003',
    ]);
    const env = containerEnv(colocated);
    const gatewayConfig = loadGatewayConfig(env);
    expect(gatewayConfig.GATEWAY_LOCAL_WORKER).toBe(true);
    expect(gatewayEventLoops(gatewayConfig, 2)).toBe(1);
    // The worker in its process reads the same environment: the registry's live config, its own
    // container hostname advertised (the `worker` alias serves the static snapshot's group).
    const workerConfig = loadWorkerConfig(env);
    expect(workerConfig.WORKER_GROUP).toBe('default');
    expect(workerConfig.WORKER_ADVERTISE_ADDRESS).toBeUndefined();
    expect(workerConfig.REGISTRY_URL).toBe('http://registry:8081');
    expect(colocated?.networks?.default?.aliases).toEqual(['worker']);
    expect(colocated?.volumes).toContain('worker-cache:/var/cache/modelgate/worker');
    // The gateway drains first, then its worker: the grace period outlasts both.
    const drains = gatewayConfig.GATEWAY_DRAIN_TIMEOUT_MS + workerConfig.WORKER_DRAIN_TIMEOUT_MS;
    expect(seconds(colocated?.stop_grace_period ?? '10s') * 1000).toBeGreaterThan(drains);
  });

  it('reserves one NVIDIA GPU for the worker (profile gpu) and runs the same worker without one under profile cpu', () => {
    const { worker, 'worker-cpu': workerCpu } = compose.services;
    expect(worker?.profiles).toEqual(['gpu']);
    expect(worker?.build?.target).toBe('worker-gpu');
    expect(worker?.deploy?.resources?.reservations?.devices).toEqual([
      { driver: 'nvidia', count: 1, capabilities: ['gpu'] },
    ]);
    expect(workerCpu?.profiles).toEqual(['cpu']);
    expect(workerCpu?.build?.target).toBe('worker-cpu');
    expect(workerCpu?.deploy?.resources).toBeUndefined();
    expect(workerCpu?.environment).toEqual(worker?.environment);
    expect(workerCpu?.networks?.default?.aliases).toContain('worker');
    expect(worker?.networks?.default?.aliases).toContain('worker');
    expect(['gpu', 'cpu', 'small']).toContain(exampleEnv.get('COMPOSE_PROFILES'));
  });

  it('gives workers a stop grace period longer than their drain timeout', () => {
    for (const name of ['worker', 'worker-cpu']) {
      const service = compose.services[name];
      const drainMs = Number(service?.environment?.WORKER_DRAIN_TIMEOUT_MS ?? 30_000);
      expect(seconds(service?.stop_grace_period ?? '10s') * 1000, name).toBeGreaterThan(drainMs);
    }
  });

  it('gives gateways a stop grace period longer than their shutdown delay plus drain timeout', () => {
    const environment = compose.services.gateway?.environment ?? {};
    const delayMs = Number(environment.GATEWAY_SHUTDOWN_DELAY_MS ?? 0);
    const drainMs = Number(environment.GATEWAY_DRAIN_TIMEOUT_MS ?? 30_000);
    expect(seconds(compose.services.gateway?.stop_grace_period ?? '10s') * 1000).toBeGreaterThan(
      delayMs + drainMs,
    );
  });

  it('sets only environment variables that each app’s config schema reads', () => {
    for (const [name, service] of services) {
      const apps = appsOf(service);
      if (apps.length === 0) continue;
      const unknown = Object.keys(service.environment ?? {}).filter(
        (key) => !apps.some((app) => APP_ENV_KEYS[app].has(key)),
      );
      expect(unknown, `${name} (${apps.join(', ')})`).toEqual([]);
    }
  });

  it('never writes a credential inline: secrets come from .env through interpolation', () => {
    const problems: string[] = [];
    for (const [name, service] of services) {
      expect(service.env_file, `${name}: env_file would hand every secret to every service`).toBeUndefined();
      for (const [key, raw] of Object.entries(service.environment ?? {})) {
        const value = String(raw);
        if (/PASSWORD|TOKEN|SECRET/.test(key) && !/^\$\{[A-Z_]+(:\?[^}]*)?\}$/.test(value)) {
          problems.push(`${name}.${key} is not a \${VAR} reference`);
        }
        const credentials = /:\/\/([^/@]*)@/.exec(value)?.[1];
        if (credentials !== undefined && !/^(\$\{\w+\})?:\$\{\w+\}$/.test(credentials)) {
          problems.push(`${name}.${key} has inline credentials`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(readRepoFile('.gitignore').split('\n')).toContain('.env');
  });

  it('defines every interpolated variable in deploy.env.example (or gives it a default), and uses every one it defines', () => {
    const referenced = new Map<string, boolean>();
    for (const [, name, operator] of composeText.matchAll(/\$\{(\w+)(:-|:\?|-|\?)?[^}]*\}/g)) {
      referenced.set(
        name ?? '',
        (referenced.get(name ?? '') ?? false) || operator === ':-' || operator === '-',
      );
    }
    const undefinedVars = [...referenced].filter(
      ([name, hasDefault]) => !hasDefault && !exampleEnv.has(name),
    );
    expect(undefinedVars).toEqual([]);
    const unused = [...exampleEnv.keys()].filter(
      (name) => !referenced.has(name) && name !== 'COMPOSE_PROFILES',
    );
    expect(unused).toEqual([]);
    for (const secret of [
      'POSTGRES_PASSWORD',
      'REDIS_PASSWORD',
      'REGISTRY_BOOTSTRAP_TOKEN',
      'REGISTRY_NODE_TOKEN',
    ]) {
      expect(exampleEnv.get(secret), `${secret} must be left empty in the example`).toBe('');
    }
  });

  it('mounts only files that exist, and a snapshot the apps accept whose worker group is the `worker` alias', () => {
    for (const [name, service] of services) {
      for (const volume of service.volumes ?? []) {
        const [source = ''] = volume.split(':');
        if (source.startsWith('.') || source.startsWith('/'))
          expect(existsSync(repoPath(source)), `${name}: ${source}`).toBe(true);
        else expect(compose.volumes?.[source], `${name}: named volume ${source}`).toBeDefined();
      }
    }
    const snapshot = parseConfigSnapshot(JSON.parse(readRepoFile('docker', 'compose', 'snapshot.json')));
    expect(snapshot.workerGroups).toEqual([{ name: 'default', addresses: ['dns:///worker:8001'] }]);
    for (const name of ['gateway', 'gateway-colocated', 'worker']) {
      expect(compose.services[name]?.volumes).toContain(
        './docker/compose/snapshot.json:/etc/modelgate/snapshot.json:ro',
      );
    }
    // Following the registry, they name no config file (the apps refuse one beside REGISTRY_URL).
    expect(compose.services.gateway?.environment?.GATEWAY_CONFIG_FILE).toBeUndefined();
    expect(compose.services.worker?.environment?.WORKER_CONFIG_FILE).toBeUndefined();
  });

  it('runs gateways and workers on live config sync from the registry and Redis', () => {
    const { registry, gateway, worker, 'worker-cpu': workerCpu } = compose.services;
    const live = {
      REGISTRY_URL: 'http://registry:8081',
      REGISTRY_TOKEN: expect.stringMatching(/^\$\{REGISTRY_NODE_TOKEN:\?/) as unknown,
      REDIS_URL: registry?.environment?.REDIS_URL,
      REDIS_KEY_PREFIX: registry?.environment?.REDIS_KEY_PREFIX,
    };
    expect(registry?.environment?.REDIS_KEY_PREFIX).toBe('modelgate');
    expect(gateway?.environment).toMatchObject(live);
    for (const service of [worker, workerCpu]) {
      expect(service?.environment).toMatchObject(live);
      expect(service?.depends_on?.registry?.condition).toBe('service_healthy');
      expect(service?.depends_on?.redis?.condition).toBe('service_healthy');
    }
    expect(gateway?.depends_on?.redis?.condition).toBe('service_healthy');
  });

  it('publishes the registry’s admin API on 127.0.0.1 by default, the address configurable in .env', () => {
    expect(compose.services.registry?.ports).toEqual([
      '${REGISTRY_PUBLISHED_ADDRESS:-127.0.0.1}:${REGISTRY_PUBLISHED_PORT:-8081}:8081',
    ]);
    expect(exampleEnv.get('REGISTRY_PUBLISHED_ADDRESS')).toBe('127.0.0.1');
    // Every other published port is the public face: the edge proxy's, or the co-located gateway's
    // under profile small.
    const published = services
      .filter(([, service]) => (service.ports ?? []).length > 0)
      .map(([name]) => name);
    expect(published.sort()).toEqual(['edge', 'gateway-colocated', 'registry']);
  });

  it('lets workers scale with --scale: no fixed name, host port, hostname or address, and each replica advertises its own', () => {
    for (const name of ['worker', 'worker-cpu']) {
      const service = compose.services[name];
      expect(service?.container_name, name).toBeUndefined();
      expect(service?.hostname, name).toBeUndefined();
      expect(service?.ports ?? [], name).toEqual([]);
      expect(service?.deploy?.replicas, name).toBeUndefined();
      // The worker's own config with this environment: no advertised address, bound to every
      // interface, so each replica heartbeats its container hostname (the short id Docker's DNS resolves).
      const config = loadWorkerConfig(containerEnv(service));
      expect(config.WORKER_ADVERTISE_ADDRESS).toBeUndefined();
      const replicas = ['3f1c2a9b7d10', '8e4d6c0a2b55', 'c09a7e13f4d2'];
      expect(
        replicas.map(
          (hostname) => `${dialableHost(config.WORKER_HOST, hostname)}:${config.WORKER_GRPC_PORT}`,
        ),
      ).toEqual(replicas.map((hostname) => `${hostname}:8001`));
      // The shared alias stays for the static snapshot, which names every replica at once.
      expect(service?.networks?.default?.aliases).toEqual(['worker']);
    }
  });

  it('builds the GPU worker with the onnxruntime package checksum from .env (the build refuses an empty one)', () => {
    expect(compose.services.worker?.build?.args).toEqual({
      ONNXRUNTIME_GPU_NUPKG_SHA256: '${ONNXRUNTIME_GPU_NUPKG_SHA256:-}',
    });
    expect(exampleEnv.get('ONNXRUNTIME_GPU_NUPKG_SHA256')).toBe('');
  });

  it('runs the modelgate services with a read-only root filesystem', () => {
    for (const [name, service] of services) {
      if (appsOf(service).length > 0) expect(service.read_only, name).toBe(true);
    }
  });
});

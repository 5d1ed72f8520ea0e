import { describe, expect, it } from 'vitest';
import { homeLayout } from '../home/home-layout.js';
import { loadStandaloneConfig } from '../standalone.config.js';
import {
  type LaunchFacts,
  colocatedEnvironment,
  dialHost,
  gatewayEnvironment,
  registryEnvironment,
  workerEnvironment,
} from './app-environments.js';

function facts(env: NodeJS.ProcessEnv, embeddedDatabase = true): LaunchFacts {
  const config = loadStandaloneConfig({ MODELGATE_HOME: '/srv/mg', ...env });
  return {
    config,
    layout: homeLayout(config.MODELGATE_HOME),
    databaseUrl: embeddedDatabase ? 'postgres://postgres@127.0.0.1:40000/postgres' : (env.DATABASE_URL ?? ''),
    embeddedDatabase,
    adminToken: 'mgt_admin',
  };
}

describe('app environments', () => {
  it('keeps the apps on this machine, on the default ports, with state under MODELGATE_HOME', () => {
    const launch = facts({});
    const registry = registryEnvironment({}, launch);
    expect(registry).toMatchObject({
      REGISTRY_HOST: '127.0.0.1',
      REGISTRY_PORT: '8081',
      REGISTRY_PUBLIC_URL: 'http://127.0.0.1:8081',
      REGISTRY_ARTIFACT_DIR: '/srv/mg/artifacts',
      REGISTRY_MIGRATE_ON_START: 'true',
      REGISTRY_BOOTSTRAP_TOKEN: 'mgt_admin',
    });
    expect(workerEnvironment({}, launch, 'mgt_node')).toMatchObject({
      WORKER_GRPC_PORT: '8001',
      WORKER_HTTP_PORT: '8002',
      WORKER_CACHE_DIR: '/srv/mg/worker-cache',
      REGISTRY_URL: 'http://127.0.0.1:8081',
      REGISTRY_TOKEN: 'mgt_node',
    });
    expect(gatewayEnvironment({}, launch, 'mgt_node')).toMatchObject({
      GATEWAY_PORT: '8080',
      GATEWAY_WORKERS: '1',
      GATEWAY_DRAIN_TIMEOUT_MS: '5000',
    });
  });

  it("co-locates the worker in the gateway by default: one process with both apps' variables, no worker address", () => {
    const launch = facts({});
    expect(launch.config.MODELGATE_COLOCATED).toBe(true);
    const env = colocatedEnvironment({}, launch, 'mgt_node');
    expect(env).toMatchObject({
      GATEWAY_LOCAL_WORKER: 'true',
      GATEWAY_PORT: '8080',
      GATEWAY_WORKERS: '1',
      WORKER_GRPC_PORT: '8001',
      WORKER_HTTP_PORT: '8002',
      WORKER_GROUP: 'default',
      REGISTRY_TOKEN: 'mgt_node',
    });
    expect(env.GATEWAY_WORKER_ADDRESSES).toBeUndefined();
    expect(gatewayEnvironment({}, launch, 'mgt_node').GATEWAY_WORKER_ADDRESSES).toBe(
      'default=127.0.0.1:8001',
    );
    expect(facts({ MODELGATE_COLOCATED: 'false' }).config.MODELGATE_COLOCATED).toBe(false);
    expect(() => facts({ GATEWAY_LOCAL_WORKER: 'true' })).toThrow(
      /GATEWAY_LOCAL_WORKER: the launcher co-locates/,
    );
  });

  it('gives the embedded database one connection in the public schema, and refuses other settings', () => {
    expect(registryEnvironment({}, facts({}))).toMatchObject({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:40000/postgres',
      DATABASE_SCHEMA: 'public',
      DATABASE_POOL_SIZE: '1',
    });
    expect(() => facts({ DATABASE_SCHEMA: 'mine', DATABASE_POOL_SIZE: '10' })).toThrow(
      /DATABASE_SCHEMA: the embedded database keeps everything in its public schema; unset it\n {2}DATABASE_POOL_SIZE: the embedded database serves one connection/,
    );
    const external = {
      DATABASE_URL: 'postgres://db/modelgate',
      DATABASE_SCHEMA: 'mine',
      DATABASE_POOL_SIZE: '10',
    };
    expect(registryEnvironment(external, facts(external, false))).toMatchObject(external);
  });

  it('without Redis, polls every 500 ms and tells the gateway where the worker is', () => {
    const gateway = gatewayEnvironment({}, facts({}), 'mgt_node');
    expect(gateway.GATEWAY_WORKER_ADDRESSES).toBe('default=127.0.0.1:8001');
    expect(gateway.GATEWAY_RECONCILE_INTERVAL_MS).toBe('500');
    expect(workerEnvironment({}, facts({}), 'mgt_node').WORKER_RECONCILE_INTERVAL_MS).toBe('500');
  });

  it('with Redis, leaves discovery and announcements to it', () => {
    const env = { REDIS_URL: 'redis://127.0.0.1:6379' };
    const gateway = gatewayEnvironment(env, facts(env), 'mgt_node');
    expect(gateway.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(gateway.GATEWAY_WORKER_ADDRESSES).toBeUndefined();
    expect(gateway.GATEWAY_RECONCILE_INTERVAL_MS).toBeUndefined();
  });

  it('lets the user override its defaults, and refuses what it must decide itself', () => {
    const env = { GATEWAY_LOG_LEVEL: 'debug', GATEWAY_PORT: '9080', REGISTRY_MIGRATE_ON_START: 'true' };
    const gateway = gatewayEnvironment(env, facts(env), 'mgt_node');
    expect(gateway).toMatchObject({
      GATEWAY_LOG_LEVEL: 'debug',
      GATEWAY_PORT: '9080',
      REGISTRY_TOKEN: 'mgt_node',
    });
    for (const [key, value] of [
      ['REGISTRY_URL', 'http://elsewhere:8081'],
      ['REGISTRY_TOKEN', 'mine'],
      ['WORKER_CONFIG_FILE', '/etc/worker.json'],
      ['GATEWAY_CONFIG_FILE', '/etc/gateway.json'],
      ['REGISTRY_MIGRATE_ON_START', 'false'],
    ] as const) {
      expect(() => facts({ [key]: value })).toThrow(
        new RegExp(`^invalid standalone configuration:\\n {2}${key}: .*; unset it$`),
      );
    }
  });

  it('keeps the database URL and the admin token from the gateway and the worker', () => {
    const env = { DATABASE_URL: 'postgres://db/modelgate', REGISTRY_BOOTSTRAP_TOKEN: 'mgt_0123456789abcdef' };
    for (const nodeEnv of [
      gatewayEnvironment(env, facts(env, false), 'mgt_node'),
      workerEnvironment(env, facts(env, false), 'mgt_node'),
    ]) {
      expect(nodeEnv.DATABASE_URL).toBeUndefined();
      expect(nodeEnv.REGISTRY_BOOTSTRAP_TOKEN).toBeUndefined();
    }
  });

  it('dials a bind-all address on this machine', () => {
    expect(dialHost('0.0.0.0')).toBe('127.0.0.1');
    expect(dialHost('::')).toBe('127.0.0.1');
    expect(dialHost('::1')).toBe('[::1]');
    expect(dialHost('10.0.0.7')).toBe('10.0.0.7');
  });
});

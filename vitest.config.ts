import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const libsDir = fileURLToPath(new URL('./libs', import.meta.url));

// Workspace libs resolve to their TypeScript sources in tests; the apps' processes run from dist.
const alias = [{ find: /^@modelgate\/([a-z-]+)$/, replacement: `${libsDir}/$1/src/index.ts` }];

// SWC emits the decorator metadata Nest's DI needs; esbuild would silently inject undefined.
const plugins = [swc.vite({ module: { type: 'es6' } })];

export default defineConfig({
  plugins,
  resolve: { alias },
  test: {
    projects: [
      {
        plugins,
        resolve: { alias },
        test: {
          name: 'unit',
          include: ['apps/*/src/**/*.spec.ts', 'libs/*/src/**/*.spec.ts', 'bench/**/*.spec.ts'],
        },
      },
      {
        plugins,
        resolve: { alias },
        test: {
          name: 'integration',
          include: [
            'apps/*/test/**/*.int-spec.ts',
            'libs/*/test/**/*.int-spec.ts',
            'test/e2e/**/*.e2e-spec.ts',
          ],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});

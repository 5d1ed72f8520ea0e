// Type-aware lint for the whole workspace. Zero warnings is the bar (`npm run lint`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/** Infrastructure that must stay out of the pure libs (DESIGN §2). */
const pureLibBannedImports = [
  { group: ['@nestjs/*'], message: 'Pure libs never import Nest; apps wire them up.' },
  {
    group: ['onnxruntime-node', 'onnxruntime-*'],
    message: 'Only the worker session adapter imports onnxruntime.',
  },
  { group: ['typeorm', 'pg'], message: 'Pure libs never touch Postgres.' },
  { group: ['ioredis', 'bullmq'], message: 'Pure libs never touch Redis.' },
  { group: ['@grpc/*'], message: 'Pure libs never speak gRPC.' },
];

/** Test code that runtime code (what `npm start` and the images run) must not load. */
const testCodeBannedImports = [
  {
    group: ['@modelgate/testing', '@modelgate/testing/*'],
    message: 'Runtime code never imports the test harness; fixtures are @modelgate/fixtures.',
  },
  { group: ['**/test/**', 'test/**'], message: 'Runtime code never imports test code.' },
];

/** Runtime sources: every app's and lib's src/, but not the test harness lib itself. */
const runtimeSources = ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'];
const pureLibSources = [
  'libs/batching/src/**/*.ts',
  'libs/contracts/src/**/*.ts',
  'libs/generation/src/**/*.ts',
  'libs/routing/src/**/*.ts',
  'libs/processing/src/**/*.ts',
  'libs/api-docs/src/**/*.ts',
];
const notRuntime = ['**/*.spec.ts', 'libs/testing/**'];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.cache/**', '.modelgate/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', '*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always'],
    },
  },
  // Flat config replaces a rule's options per file, not merges them: each block lists every
  // pattern that applies to its files.
  {
    files: runtimeSources,
    ignores: [...pureLibSources, ...notRuntime],
    rules: { 'no-restricted-imports': ['error', { patterns: testCodeBannedImports }] },
  },
  {
    files: pureLibSources,
    ignores: notRuntime,
    rules: {
      'no-restricted-imports': ['error', { patterns: [...pureLibBannedImports, ...testCodeBannedImports] }],
    },
  },
  {
    // Specs of the pure libs may use the test harness, never the infrastructure.
    files: pureLibSources.map((glob) => glob.replace(/\*\.ts$/, '*.spec.ts')),
    rules: { 'no-restricted-imports': ['error', { patterns: pureLibBannedImports }] },
  },
  {
    // The bench runs the apps as processes and shares their settings through libs. Left: the
    // micro-benchmark of the worker's own hot path, which drives ModelRunner in its process.
    files: ['bench/**/*.ts'],
    ignores: ['bench/worker-hot-path.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/apps/*/src/**'],
              message: "The bench never imports an app's sources; what both need belongs in a lib.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);

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
  {
    files: [
      'libs/batching/src/**/*.ts',
      'libs/contracts/src/**/*.ts',
      'libs/generation/src/**/*.ts',
      'libs/routing/src/**/*.ts',
      'libs/processing/src/**/*.ts',
      'libs/api-docs/src/**/*.ts',
    ],
    rules: { 'no-restricted-imports': ['error', { patterns: pureLibBannedImports }] },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);

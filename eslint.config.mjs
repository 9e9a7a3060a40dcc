import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'vendor/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // src/ is the library the worker builds on; it must never depend on the worker.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/workers/**', '../workers/*'],
              message: 'src/ must not import from workers/',
            },
          ],
        },
      ],
    },
  },
  {
    // Type-aware rules: a promise nobody awaits loses its rejection (Express never sees it and
    // the visitor gets no answer). Only these two rules use type information; the rest of the
    // config stays syntactic. All TypeScript is covered by tsconfig.json, so projectService
    // finds a program for every file.
    files: ['src/**/*.ts', 'workers/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // The dashboard's browser code: plain ES modules served as they are (no build step).
    files: ['web/**/*.js'],
    languageOptions: { globals: globals.browser, sourceType: 'module' },
  },
  {
    files: ['src/cli/**/*.ts', 'bench/**/*.ts', 'scripts/seed.ts'],
    rules: { 'no-console': 'off' },
  },
);

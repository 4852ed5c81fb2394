import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

export default [
  { ignores: ['node_modules/', 'dist/', '.data/', '.nx/', 'coverage/', 'tmp/', '**/*.js', '**/*.mjs', '**/*.d.mts', 'libs/sdk/src/generated/'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': [
        'error',
        { object: 'describe', property: 'only', message: 'No focused tests.' },
        { object: 'it', property: 'only', message: 'No focused tests.' },
        { object: 'test', property: 'only', message: 'No focused tests.' },
      ],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: [],
          depConstraints: [
            { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib', 'type:domain'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:lib', 'type:domain'] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib', 'type:domain', 'type:testing'] },
            { sourceTag: 'scope:auth', onlyDependOnLibsWithTags: ['scope:auth', 'scope:shared'] },
            { sourceTag: 'scope:platform', onlyDependOnLibsWithTags: ['scope:platform', 'scope:shared'] },
            { sourceTag: 'scope:search', onlyDependOnLibsWithTags: ['scope:search', 'scope:shared'] },
            { sourceTag: 'scope:gis', onlyDependOnLibsWithTags: ['scope:gis', 'scope:shared'] },
          ],
        },
      ],
    },
  },
  {
    // Test harnesses, runners and benchmarks start the apps themselves, so they may import them. Libraries never do
    // (libs/testing included: the stack that starts the services is tools/testing/test-stack.ts).
    files: ['**/*.spec.ts', '**/test/**/*.ts', 'tools/**/*.ts', 'bench/**/*.ts', 'e2e/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', '@nx/enforce-module-boundaries': 'off' },
  },
];

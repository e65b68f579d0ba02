// Lint for the bugs that bite (STYLE.md 14): floating promises, non-exhaustive switches,
// `.only` in tests, and the one-way dependency rule (STYLE.md 4: engine/ never imports a transport).
import tseslint from 'typescript-eslint';

const transportPackages = ['fastify', '@fastify/*', '@modelcontextprotocol/*', 'commander', 'oidc-provider'];

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', 'data/**', 'coverage/**', '**/*.mjs', '**/*.js'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      '@typescript-eslint/only-throw-error': 'off',
    },
  },
  {
    files: ['engine/**/*.ts'],
    ignores: ['engine/**/adapters/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: transportPackages, message: 'engine/ is transport-free: adapt it from api/ or cli/ (STYLE.md 4).' },
          { group: ['pg', 'pg-boss', '@duckdb/*', '@electric-sql/*', 'undici'], message: 'engine/ reaches storage and HTTP only through ports; put the adapter under an adapters/ folder.' },
          { group: ['**/api/**', '**/cli/**'], message: 'dependencies point one way: api/ and cli/ depend on engine/, never the reverse.' },
        ],
      }],
    },
  },
  {
    files: ['test/**/*.ts', '**/*.test.ts'],
    rules: {
      'no-restricted-syntax': ['error',
        { selector: "CallExpression[callee.property.name='only']", message: 'no .only in tests' }],
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);

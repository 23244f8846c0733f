// Module boundaries of docs/architecture.md, checked in CI (`npm run lint:deps`).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'module-public-face',
      severity: 'error',
      comment: "A module reaches another only through the other's index.ts (its service type, published schemas and read models): never its repository, routes, SQL or internals.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index[.]ts$'] },
    },
    {
      name: 'documents-public-face',
      severity: 'error',
      comment: 'The documents kernel is used through core/documents/index.ts only.',
      from: { path: '^src/', pathNot: '^src/core/documents/' },
      to: { path: '^src/core/documents/', pathNot: '^src/core/documents/index[.]ts$' },
    },
    {
      name: 'kernel-knows-no-module',
      severity: 'error',
      comment: 'core/ (the kernel) names no module and not the app: modules depend on it, never the reverse.',
      from: { path: '^src/core/' },
      to: { path: ['^src/modules/', '^src/app[.]ts$', '^src/server[.]ts$'] },
    },
    {
      name: 'csv-through-the-kernel',
      severity: 'error',
      comment: 'Every CSV the service writes goes through src/core/csv.ts, which neutralises cells that could start a spreadsheet formula (finding 7 of issue 24): csv-stringify is imported there and nowhere else.',
      from: { path: '^(src|bench|scripts)/', pathNot: '^src/core/csv[.]ts$' },
      to: { path: 'node_modules/csv-stringify/' },
    },
    {
      name: 'production-code-imports-no-test-code',
      severity: 'error',
      comment: 'Only tests (*.test.ts) and tenancy fixtures (*.fixtures.ts) may import test support.',
      from: { path: '^src/', pathNot: '[.](test|fixtures)[.]ts$' },
      to: { path: ['^test/', '[.](test|fixtures)[.]ts$'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules are loaded in the order of their declared needs, so imports between them must form no cycle.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types'],
    },
  },
}

// `npm run chart:docs`: regenerates the values table of helm/modelgate/README.md from the `# --`
// comments of helm/modelgate/values.yaml. `npm run chart:docs -- --check` only says whether it is
// stale (exit 1), as test/e2e/deploy/chart-readme.e2e-spec.ts does.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { renderChartReadme } from './chart-readme.js';

const chartDir = fileURLToPath(new URL('../../helm/modelgate/', import.meta.url));
const readmePath = `${chartDir}README.md`;
const rendered = await renderChartReadme(readmePath, `${chartDir}values.yaml`);
const current = await readFile(readmePath, 'utf8');

if (process.argv.includes('--check')) {
  if (rendered !== current) {
    console.error('helm/modelgate/README.md: the values table is stale; run `npm run chart:docs`');
    process.exitCode = 1;
  }
} else if (rendered !== current) {
  await writeFile(readmePath, rendered);
  console.log('helm/modelgate/README.md: values table regenerated');
} else {
  console.log('helm/modelgate/README.md: values table up to date');
}

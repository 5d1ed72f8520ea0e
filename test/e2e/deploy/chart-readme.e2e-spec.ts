// The values table of helm/modelgate/README.md is generated from values.yaml's `# --` comments by
// tools/chart-docs (`npm run chart:docs`); a change to values.yaml without regenerating it fails here.
import { describe, expect, it } from 'vitest';
import { renderChartReadme } from '../../../tools/chart-docs/chart-readme.js';
import { documentedValues, valuesTable } from '../../../tools/chart-docs/values-table.js';
import { readRepoFile, repoPath } from './support/repo.js';

describe('helm/modelgate/README.md', () => {
  it('holds the values table generated from values.yaml (stale: run `npm run chart:docs`)', async () => {
    const rendered = await renderChartReadme(
      repoPath('helm', 'modelgate', 'README.md'),
      repoPath('helm', 'modelgate', 'values.yaml'),
    );
    expect(readRepoFile('helm', 'modelgate', 'README.md')).toBe(rendered);
  });

  it('lists every `# --` documented value with its type and default', () => {
    const docs = documentedValues(readRepoFile('helm', 'modelgate', 'values.yaml'));
    const byKey = new Map(docs.map((doc) => [doc.key, doc]));
    expect(byKey.get('image.registry')).toMatchObject({ type: 'string', defaultJson: '""' });
    expect(byKey.get('worker.gpu.count')).toMatchObject({ type: 'int', defaultJson: '1' });
    expect(byKey.get('metrics.prometheusRule.errorRate.threshold')).toMatchObject({ defaultJson: '""' });
    expect(byKey.get('gateway.extraEnv')).toMatchObject({ type: 'list', defaultJson: '[]' });
    for (const component of ['registry', 'gateway', 'worker']) {
      for (const key of ['extraVolumes', 'sidecars', 'topologySpreadConstraints', 'priorityClassName'])
        expect(byKey.has(`${component}.${key}`), `${component}.${key}`).toBe(true);
    }
  });
});

describe('tools/chart-docs', () => {
  const values = [
    '# A section comment documents nothing.',
    'image:',
    '  # -- Registry of the images,',
    '  # continued on a second line | with a pipe.',
    "  registry: ''",
    '  # Not a doc comment.',
    '  tag: v1',
    '# -- Tolerations; keys inside list items are examples.',
    'tolerations:',
    '  # -- not a value',
    '  - key: a',
    '# -- A map.',
    'labels: {team: ml}',
    '# -- A fraction.',
    'threshold: 0.05',
  ].join('\n');

  it('reads `# --` comments with their continuation lines, skipping plain comments and list items', () => {
    expect(documentedValues(values)).toEqual([
      {
        key: 'image.registry',
        type: 'string',
        defaultJson: '""',
        description: 'Registry of the images, continued on a second line | with a pipe.',
      },
      {
        key: 'tolerations',
        type: 'list',
        defaultJson: '[{"key":"a"}]',
        description: 'Tolerations; keys inside list items are examples.',
      },
      { key: 'labels', type: 'object', defaultJson: '{"team":"ml"}', description: 'A map.' },
      { key: 'threshold', type: 'float', defaultJson: '0.05', description: 'A fraction.' },
    ]);
  });

  it('escapes pipes in table cells', () => {
    const table = valuesTable(documentedValues(values));
    expect(table.split('\n')[2]).toBe(
      '| `image.registry` | string | `""` | Registry of the images, continued on a second line \\| with a pipe. |',
    );
  });
});

import { ErrorCode, type ModelgateError } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { type OnnxSession } from '../model-loading/onnx-session.adapter.js';
import { GenerationRunner, type GenerationSink, generationLimitsOf } from './generation-runner.js';
import { type GenerationCommand } from './generation-protocol.js';

/** A session that records the commands it is sent; `lostReason` set makes it a dead thread. */
function fakeSession(lostReason?: string): OnnxSession & { commands: GenerationCommand[] } {
  const commands: GenerationCommand[] = [];
  return {
    inputs: [],
    outputs: [],
    spinsWithinRuns: false,
    commands,
    lostReason,
    run: () => Promise.reject(new Error('not used')),
    generate: (command) => commands.push(command),
    onGeneration: () => undefined,
    crashForTest: () => undefined,
    release: () => Promise.resolve(),
  };
}

const layout = { layers: 1, heads: 1, headSize: 1, hasPositionIds: true, useCacheBranch: false };
const limits = generationLimitsOf({ maxBatchSize: 2, maxQueueSize: 4 }, { maxPositions: 16 });
const request = {
  promptIds: [1, 2],
  maxNewTokens: 3,
  eosTokenIds: [],
  sampling: { doSample: false, temperature: 1, topK: 0, topP: 1 },
};
const sink: GenerationSink = { started: () => undefined, tokens: () => undefined, failed: () => undefined };
const adds = (session: { commands: GenerationCommand[] }) => session.commands.filter((c) => c.type === 'add');

describe('GenerationRunner', () => {
  it('never sends a sequence to a lost session, and answers UNAVAILABLE when none is left', () => {
    const [lost, live] = [fakeSession('the session thread exited (code 70)'), fakeSession()];
    const runner = new GenerationRunner('gpt:1', [lost, live], layout, limits);
    runner.generate(request, {}, sink);
    runner.generate(request, {}, sink);
    expect(adds(lost)).toHaveLength(0);
    expect(adds(live)).toHaveLength(2);

    const dead = new GenerationRunner('dead:1', [fakeSession('gone')], layout, limits);
    expect(() => dead.generate(request, {}, sink)).toThrow(
      expect.objectContaining({ code: ErrorCode.UNAVAILABLE }) as ModelgateError,
    );
  });

  it("refuses prompt + max_new_tokens beyond the model's positions with TOKEN_LIMIT_EXCEEDED", () => {
    const runner = new GenerationRunner('gpt:1', [fakeSession()], layout, limits);
    expect(() => runner.generate({ ...request, promptIds: new Array<number>(14).fill(1) }, {}, sink)).toThrow(
      /over the model's 16 positions/,
    );
    expect(() =>
      runner.generate({ ...request, promptIds: new Array<number>(13).fill(1) }, {}, sink),
    ).not.toThrow();
  });
});

import { type CancelSignal } from '@modelgate/batching';
import { ErrorCode, ModelgateError, isModelgateError } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { CallMerger } from './call-merger.js';
import { type InferInput } from './infer-codec.js';
import { type ModelInferRequestMessage } from './infer-messages.js';
import { type InferRequest, type InferResult, InferenceClient } from './inference-client.js';
import { type RowLayout } from './merge-calls.js';
import { type WorkerChannel } from './worker-channel.js';

const LAYOUT: RowLayout = { maxRows: 8, sequenceInputs: ['input_ids'], sequenceOutputs: { echo: 1 } };

type Run = { request: InferRequest; resolve: (r: InferResult) => void; reject: (e: unknown) => void };

/** runCall as a fake: each run waits until the test answers it. */
class FakeRuns {
  readonly runs: Run[] = [];
  readonly time = { now: 0 };
  readonly merger = new CallMerger(
    (request) => new Promise((resolve, reject) => this.runs.push({ request, resolve, reject })),
    () => this.time.now,
  );

  /** Answers run `index` the way a model echoing its input_ids would (or with `echo`). */
  answer(index: number, echo?: InferInput): void {
    const run = this.runs[index];
    if (run === undefined) throw new Error(`no run ${index}`);
    const ids = echo ?? run.request.inputs[0];
    if (ids === undefined) throw new Error('no input to echo');
    run.resolve({
      modelName: run.request.modelName,
      modelVersion: '1',
      id: run.request.id ?? '',
      outputs: { echo: { datatype: 'INT64', dims: [...ids.dims], data: ids.data as BigInt64Array } },
      parameters: {},
      worker: 'w1',
      attempts: 1,
      durationMs: 1,
    });
  }

  fail(index: number, code: ErrorCode): ModelgateError {
    const error = new ModelgateError(code, `${code} from the worker`);
    this.runs[index]?.reject(error);
    return error;
  }
}

function call(id: string, ids: bigint[][], extra: Partial<InferRequest> = {}): InferRequest {
  const data = BigInt64Array.from(ids.flat());
  return {
    modelName: 'bert',
    id,
    inputs: [{ name: 'input_ids', datatype: 'INT64', dims: [ids.length, ids[0]?.length ?? 0], data }],
    deadlineEpochMs: Date.now() + 60_000,
    metadata: { 'x-request-id': id },
    ...extra,
  };
}

const echoOf = (result: InferResult) => [...(result.outputs.echo?.data as BigInt64Array)];
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** The code a call failed with (or 'answered'). */
const codeOf = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => 'answered',
    (error: unknown) => (isModelgateError(error) ? error.code : String(error)),
  );

describe('CallMerger', () => {
  it('runs the calls of one turn as one call and gives each caller its own rows, id and duration', async () => {
    const fake = new FakeRuns();
    const a = fake.merger.infer(call('a', [[1n, 2n]]), LAYOUT);
    fake.time.now = 2;
    const later = Date.now() + 90_000;
    const b = fake.merger.infer(
      call(
        'b',
        [
          [3n, 4n, 5n],
          [6n, 7n, 8n],
        ],
        { deadlineEpochMs: later },
      ),
      LAYOUT,
    );
    expect(fake.merger.waitingCalls).toBe(2);
    await turn();
    expect(fake.runs).toHaveLength(1);
    const merged = fake.runs[0]?.request as InferRequest;
    expect(merged).toMatchObject({ id: 'a+1', deadlineEpochMs: later, metadata: { 'x-request-id': 'a+1' } });
    expect(merged.inputs[0]?.dims).toEqual([3, 3]);
    expect([...(merged.inputs[0]?.data as BigInt64Array)]).toEqual([1n, 2n, 0n, 3n, 4n, 5n, 6n, 7n, 8n]);
    fake.time.now = 10;
    fake.answer(0);
    const [resultA, resultB] = await Promise.all([a, b]);
    expect(resultA).toMatchObject({ id: 'a', durationMs: 10, worker: 'w1' });
    expect(resultA.outputs.echo?.dims).toEqual([1, 2]);
    expect(echoOf(resultA)).toEqual([1n, 2n]);
    expect(resultB).toMatchObject({ id: 'b', durationMs: 8 });
    expect(resultB.outputs.echo?.dims).toEqual([2, 3]);
    expect(echoOf(resultB)).toEqual([3n, 4n, 5n, 6n, 7n, 8n]);
  });

  it('sends a lone call as it was given', async () => {
    const fake = new FakeRuns();
    const request = call('a', [[1n, 2n]]);
    const result = fake.merger.infer(request, LAYOUT);
    await turn();
    expect(fake.runs[0]?.request).toBe(request);
    fake.answer(0);
    expect(echoOf(await result)).toEqual([1n, 2n]);
  });

  it('never puts more than maxRows rows in one call', async () => {
    const fake = new FakeRuns();
    const layout = { ...LAYOUT, maxRows: 2 };
    const requests = ['a', 'b', 'c'].map((id, i) => call(id, [[BigInt(i + 1)]]));
    const results = requests.map((request) => fake.merger.infer(request, layout));
    await turn();
    expect(fake.runs.map((run) => run.request.id)).toEqual(['a+1', 'c']);
    expect(fake.runs[1]?.request).toBe(requests[2]);
    fake.answer(0);
    fake.answer(1);
    expect((await Promise.all(results)).map(echoOf)).toEqual([[1n], [2n], [3n]]);
    // A call of maxRows rows goes at once, alone.
    const big = call('d', [[1n], [2n]]);
    void fake.merger.infer(big, layout);
    expect(fake.runs[2]?.request).toBe(big);
  });

  it('does not merge calls to other models or with other metadata', async () => {
    const fake = new FakeRuns();
    void fake.merger.infer(call('a', [[1n]]), LAYOUT);
    void fake.merger.infer(call('b', [[2n]], { modelName: 'roberta' }), LAYOUT);
    void fake.merger.infer(call('c', [[3n]], { metadata: { 'x-request-id': 'c', tenant: 't1' } }), LAYOUT);
    void fake.merger.infer(call('d', [[4n]], { metadata: { 'x-request-id': 'd', tenant: 't2' } }), LAYOUT);
    void fake.merger.infer(call('e', [[5n]], { metadata: { 'x-request-id': 'e', tenant: 't2' } }), LAYOUT);
    await turn();
    expect(fake.runs.map((run) => run.request.id).sort()).toEqual(['a', 'b', 'c', 'd+1']);
  });

  it('sends calls that cannot merge at once, as they are', () => {
    const fake = new FakeRuns();
    const text = call('a', [[1n]], {
      inputs: [{ name: 'text', datatype: 'BYTES', dims: [1], data: ['hi'] }],
    });
    const controller = new AbortController();
    controller.abort();
    const cancelled = call('b', [[1n]], { signal: controller.signal });
    void fake.merger.infer(text, LAYOUT);
    void fake.merger.infer(cancelled, LAYOUT);
    expect(fake.runs.map((run) => run.request)).toEqual([text, cancelled]);
    expect(fake.merger.waitingCalls).toBe(0);
  });

  it('answers a member whose signal aborts with CANCELLED, and cancels the call once all have left', async () => {
    const fake = new FakeRuns();
    const controllers = [new AbortController(), new AbortController(), new AbortController()];
    const results = ['a', 'b', 'c'].map((id, i) =>
      fake.merger.infer(call(id, [[BigInt(i)]], { signal: controllers[i]?.signal }), LAYOUT),
    );
    await turn();
    const merged = fake.runs[0]?.request.signal as CancelSignal;
    controllers[0]?.abort();
    expect(await codeOf(results[0] as Promise<InferResult>)).toBe(ErrorCode.CANCELLED);
    expect(merged.aborted).toBe(false);
    controllers[1]?.abort();
    expect(await codeOf(results[1] as Promise<InferResult>)).toBe(ErrorCode.CANCELLED);
    expect(merged.aborted).toBe(false);
    fake.answer(0);
    expect(echoOf(await (results[2] as Promise<InferResult>))).toEqual([2n]);
    // The call ended by itself: nothing is left to cancel.
    expect(merged.aborted).toBe(false);

    const [x, y] = [new AbortController(), new AbortController()];
    const both = [x, y].map((controller, i) =>
      codeOf(fake.merger.infer(call(`xy${i}`, [[1n]], { signal: controller.signal }), LAYOUT)),
    );
    await turn();
    const second = fake.runs[1]?.request.signal as CancelSignal;
    x.abort();
    expect(second.aborted).toBe(false);
    y.abort();
    expect(second.aborted).toBe(true);
    expect(await Promise.all(both)).toEqual([ErrorCode.CANCELLED, ErrorCode.CANCELLED]);
  });

  it('answers a member cancelled before its turn ended with CANCELLED', async () => {
    const fake = new FakeRuns();
    const controller = new AbortController();
    const a = codeOf(fake.merger.infer(call('a', [[1n]], { signal: controller.signal }), LAYOUT));
    const b = fake.merger.infer(call('b', [[2n]]), LAYOUT);
    controller.abort();
    await turn();
    expect(await a).toBe(ErrorCode.CANCELLED);
    fake.answer(0);
    expect(echoOf(await b)).toEqual([2n]);
    // When every member left before the turn ended, nothing goes out.
    const all = new AbortController();
    const gone = ['c', 'd'].map((id) =>
      codeOf(fake.merger.infer(call(id, [[1n]], { signal: all.signal }), LAYOUT)),
    );
    all.abort();
    await turn();
    expect(await Promise.all(gone)).toEqual([ErrorCode.CANCELLED, ErrorCode.CANCELLED]);
    expect(fake.runs).toHaveLength(1);
  });

  it('answers a member whose own deadline passed with DEADLINE_EXCEEDED while the others go on', async () => {
    const fake = new FakeRuns();
    const late = codeOf(fake.merger.infer(call('a', [[1n]], { deadlineEpochMs: Date.now() - 1 }), LAYOUT));
    const onTime = fake.merger.infer(call('b', [[2n]]), LAYOUT);
    await turn();
    expect(await late).toBe(ErrorCode.DEADLINE_EXCEEDED);
    expect(fake.runs[0]?.request.signal?.aborted).toBe(false);
    fake.answer(0);
    expect(echoOf(await onTime)).toEqual([2n]);
  });

  it('keeps a member whose deadline is beyond what a timer holds (Node would fire it after 1 ms)', async () => {
    const fake = new FakeRuns();
    const day = 24 * 3600_000;
    const far = fake.merger.infer(call('a', [[1n]], { deadlineEpochMs: Date.now() + 30 * day }), LAYOUT);
    const farther = fake.merger.infer(call('b', [[2n]], { deadlineEpochMs: Date.now() + 60 * day }), LAYOUT);
    await turn();
    await new Promise((resolve) => setTimeout(resolve, 20));
    fake.answer(0);
    expect([echoOf(await far), echoOf(await farther)]).toEqual([[1n], [2n]]);
  });

  it('re-runs each member alone when the merged call is refused as a whole', async () => {
    const fake = new FakeRuns();
    const requests = ['a', 'b', 'c'].map((id, i) => call(id, [[BigInt(i)]]));
    const outcomes = requests.map((request) =>
      fake.merger.infer(request, LAYOUT).then(echoOf, (error: unknown) => (error as ModelgateError).code),
    );
    await turn();
    fake.fail(0, ErrorCode.INVALID_ARGUMENT);
    await turn();
    expect(fake.runs.slice(1).map((run) => run.request)).toEqual(requests);
    fake.answer(1);
    fake.fail(2, ErrorCode.INVALID_ARGUMENT);
    fake.answer(3);
    expect(await Promise.all(outcomes)).toEqual([[0n], ErrorCode.INVALID_ARGUMENT, [2n]]);
  });

  it('re-runs each member alone when the merged answer does not split', async () => {
    const fake = new FakeRuns();
    const results = ['a', 'b'].map((id, i) => fake.merger.infer(call(id, [[BigInt(i)]]), LAYOUT));
    await turn();
    fake.answer(0, call('x', [[9n]]).inputs[0]); // one row for the two of the merged call
    await turn();
    expect(fake.runs.map((run) => run.request.id)).toEqual(['a+1', 'a', 'b']);
    fake.answer(1);
    fake.answer(2);
    expect((await Promise.all(results)).map(echoOf)).toEqual([[0n], [1n]]);
  });

  it('gives every member a QUEUE_FULL failure of the merged call', async () => {
    const fake = new FakeRuns();
    const results = ['a', 'b'].map((id, i) => fake.merger.infer(call(id, [[BigInt(i)]]), LAYOUT));
    await turn();
    const error = fake.fail(0, ErrorCode.QUEUE_FULL);
    const errors = await Promise.all(results.map((result) => result.catch((e: unknown) => e)));
    expect(errors).toEqual([error, error]);
    expect(fake.runs).toHaveLength(1);
  });
});

describe('InferenceClient with merge layouts', () => {
  /** A client over one fake worker whose model echoes input_ids; `sent` gets every ModelInfer. */
  function echoClient(mergeCalls?: boolean) {
    const sent: ModelInferRequestMessage[] = [];
    const channel = (address: string): WorkerChannel => ({
      address,
      modelInfer: (request) => {
        sent.push(request);
        const ids = request.inputs[0];
        return Promise.resolve({
          model_name: request.model_name,
          model_version: '1',
          id: request.id,
          outputs: [{ name: 'echo', datatype: 'INT64', shape: ids?.shape ?? [] }],
          raw_output_contents: [request.raw_input_contents[0] as Uint8Array],
        });
      },
      modelGenerate: () => {
        throw new Error('not used');
      },
      serverReady: () => Promise.resolve(true),
      modelReady: () => Promise.resolve(true),
      close: () => undefined,
    });
    const client = new InferenceClient({
      workerGroups: [{ name: 'g', addresses: ['w1'] }],
      createChannel: channel,
      ...(mergeCalls === undefined ? {} : { mergeCalls }),
    });
    const infer = (id: string, ids: bigint[]) =>
      client.infer({ ...call(id, [ids]), workerGroup: 'g', merge: LAYOUT });
    return { sent, infer };
  }

  it('merges the calls of one turn into one ModelInfer by default', async () => {
    const { sent, infer } = echoClient();
    const results = await Promise.all([infer('a', [1n, 2n]), infer('b', [3n])]);
    expect(sent.map((request) => [request.id, request.inputs[0]?.shape])).toEqual([['a+1', [2, 2]]]);
    expect(results.map((result) => [result.id, echoOf(result)])).toEqual([
      ['a', [1n, 2n]],
      ['b', [3n]],
    ]);
  });

  it('sends each call alone with mergeCalls: false', async () => {
    const { sent, infer } = echoClient(false);
    const results = await Promise.all([infer('a', [1n, 2n]), infer('b', [3n])]);
    expect(sent.map((request) => [request.id, request.inputs[0]?.shape])).toEqual([
      ['a', [1, 2]],
      ['b', [1, 1]],
    ]);
    expect(results.map(echoOf)).toEqual([[1n, 2n], [3n]]);
  });
});

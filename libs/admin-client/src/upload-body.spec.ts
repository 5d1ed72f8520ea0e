import { describe, expect, it } from 'vitest';
import { countingBody } from './upload-body.js';

describe('countingBody', () => {
  it('streams the multipart encoding of a form, counting every byte, with its boundary', async () => {
    const form = new FormData();
    form.set('name', 'demo');
    form.set('model.onnx', new Blob([new Uint8Array(70_000).fill(7)]), 'model.onnx');
    const counts: number[] = [];
    const { stream, contentType } = countingBody(form, (sent) => counts.push(sent));
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(counts.at(-1)).toBe(bytes.byteLength);
    expect(counts.length).toBeGreaterThan(0);
    const decoded = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
    expect(decoded.get('name')).toBe('demo');
    expect((decoded.get('model.onnx') as Blob).size).toBe(70_000);
  });
});

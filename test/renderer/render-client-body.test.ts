import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import { ServiceError } from '../../shared/errors.ts';
import { renderGrpcObject } from '../../shared/render-contract.ts';
import { createRendererClient } from '../../gateway/render/renderer-pool.ts';
import type { RenderRequest } from '../../shared/render-request.ts';

/**
 * The render client's body against a stand-in renderer (grpc-js server, the real contract) whose calls
 * misbehave on purpose: the body ends at the byte count the header announced, without waiting for the
 * call's status; a renderer that sends more than it announced, or stops short, is the transport's failure.
 */
describe('render client: the body and the announced byte count', function () {
  this.timeout(30_000);
  let server: grpc.Server;
  let port: number;
  /** What the stand-in does with a call, by the request's colour. */
  const behaviours: Record<string, (call: grpc.ServerWritableStream<unknown, unknown>) => void> = {};
  const held: grpc.ServerWritableStream<unknown, unknown>[] = [];
  const header = (byteLength: number) => ({
    header: { content_type: 'image/png', width: 1, height: 1, byte_length: byteLength, etag: '"x"', warnings: [], backend: 'cpu', cache_hit: false, render_ms: 12.5 },
  });
  const request = (color: string): RenderRequest => ({ assetSet: 'x', view: 'front', color, shadow: false, plate: null, format: 'png', width: 400, background: 'studio' });

  before(async () => {
    server = new grpc.Server();
    server.addService(renderGrpcObject().RenderService.service, {
      Render: (call: grpc.ServerWritableStream<{ color: string }, unknown>) => behaviours[call.request.color]!(call),
      DescribeSet: (_: unknown, cb: grpc.sendUnaryData<unknown>) => cb({ code: grpc.status.UNIMPLEMENTED }),
    });
    port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
  });
  after(() => {
    for (const c of held) c.end();
    server.forceShutdown();
  });

  it('ends the body at the announced byte count while the call is still open, with the renderer\'s render_ms and the call\'s timing', async () => {
    behaviours['#000001'] = (call) => {
      call.write(header(6));
      call.write({ chunk: Buffer.from('abc') });
      call.write({ chunk: Buffer.from('def') });
      held.push(call); // never ended: no status comes until the test is over
    };
    const client = createRendererClient({ addresses: `127.0.0.1:${port}` });
    try {
      const s = await client.render(request('#000001'), { deadlineMs: 20_000 });
      const chunks: Buffer[] = [];
      for await (const b of s.body) chunks.push(b);
      expect(Buffer.concat(chunks).toString()).to.equal('abcdef');
      expect(s.header.renderMs).to.equal(12.5);
      expect(s.timing!.callAt).to.be.at.most(s.timing!.headerAt);
      expect(s.timing!.headerAt).to.be.at.most(s.timing!.endAt!);
    } finally {
      client.close();
    }
  });

  it('refuses a renderer that sends more bytes than it announced (unavailable)', async () => {
    behaviours['#000002'] = (call) => {
      call.write(header(3));
      call.write({ chunk: Buffer.from('abcdef') });
      call.end();
    };
    const client = createRendererClient({ addresses: `127.0.0.1:${port}`, outageWaitMs: 0 });
    try {
      const err = await client.render(request('#000002'), { deadlineMs: 300 }).then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(ServiceError);
      expect((err as ServiceError).code).to.equal('unavailable');
    } finally {
      client.close();
    }
  });

  it('refuses a stream that ends short of the announced bytes (unavailable)', async () => {
    behaviours['#000003'] = (call) => {
      call.write(header(6));
      call.write({ chunk: Buffer.from('abc') });
      call.end();
    };
    const client = createRendererClient({ addresses: `127.0.0.1:${port}`, outageWaitMs: 0 });
    try {
      const err = await client.render(request('#000003'), { deadlineMs: 300 }).then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(ServiceError);
      expect((err as ServiceError).code).to.equal('unavailable');
    } finally {
      client.close();
    }
  });
});

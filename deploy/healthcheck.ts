/**
 * Container HEALTHCHECK without curl or wget in the image: `node deploy/healthcheck.js gateway` asks the
 * gateway's GET /healthz on PORT; `node deploy/healthcheck.js renderer` asks the renderer's
 * grpc.health.v1 Check on RENDERER_PORT, then prints the backend it chose (DescribeRenderer). Exit 0 when
 * healthy, 1 otherwise (within 4 s).
 */
import http from 'node:http';
import { connectRenderer } from '../shared/render-contract.ts';

const role = process.argv[2] ?? 'gateway';
const fail = (why: string) => {
  console.error(`unhealthy: ${why}`);
  process.exit(1);
};
setTimeout(() => fail('timeout'), 4000).unref();

if (role === 'gateway') {
  const port = Number(process.env.PORT ?? 8080);
  http
    .get({ host: '127.0.0.1', port, path: '/healthz', timeout: 3000 }, (res) => {
      res.resume();
      if (res.statusCode === 200) process.exit(0);
      fail(`status ${res.statusCode}`);
    })
    .on('error', (e) => fail(e.message));
} else if (role === 'renderer') {
  const port = Number(process.env.RENDERER_PORT ?? 50051);
  const client = connectRenderer(`127.0.0.1:${port}`);
  client.health(new Date(Date.now() + 2000)).then(
    async (status) => {
      if (status !== 'SERVING') fail('not serving');
      // which compositor this renderer chose, and why: docker inspect shows this line in its Health log
      const info = await client.describeRenderer(new Date(Date.now() + 1000)).catch(() => null);
      client.close();
      console.log(info ? `serving: backend ${info.backend} (${info.description}); ${info.reason}` : 'serving');
      process.exit(0);
    },
    (e: Error) => fail(e.message),
  );
} else {
  fail(`unknown role ${role}`);
}

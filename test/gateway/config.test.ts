import { expect } from 'chai';
import { ConfigError } from '../../shared/config-fields.ts';
import { loadGatewayConfig } from '../../gateway/config.ts';
import { loadRendererConfig } from '../../renderer/config.ts';

/** Server addresses are checked when the gateway starts: what a deployment writes passes, a typo does not. */
describe('gateway configuration: server addresses', () => {
  const load = (env: Record<string, string>) => loadGatewayConfig({ DATA_DIR: '/tmp/vis-config-test', ...env });
  const refused = (env: Record<string, string>, name: string) =>
    expect(() => load(env), JSON.stringify(env)).to.throw(ConfigError, new RegExp(`${name}: must be`));

  it('takes the URLs and targets deployments use', () => {
    for (const url of ['redis://127.0.0.1:6379', 'rediss://user:pw@redis.example:6380/2', 'redis://redis']) {
      expect(load({ REDIS_URL: url }).redisUrl).to.equal(url);
    }
    for (const url of ['postgres://postgres@127.0.0.1:5432/postgres', 'postgresql://u:p@db/vis?sslmode=require', 'postgres:///vis?host=/var/run/postgresql']) {
      expect(load({ DATABASE_URL: url }).databaseUrl).to.equal(url);
    }
    for (const addr of ['127.0.0.1:50051', 'renderer:50051', 'my_renderer:50051', 'a:1,b:2', 'a:1,b:2,', '[::1]:50051', '[fe80::1%eth0]:50051', 'dns:///vis-renderer.ns.svc.cluster.local:50051', 'unix:/run/renderer.sock']) {
      expect(load({ RENDERER_ADDR: addr }).rendererAddr).to.equal(addr);
    }
  });

  it('refuses typos that would otherwise run on the wrong thing, naming the variable', () => {
    for (const url of ['garbage', 'redis//127.0.0.1:6379', 'redis://127.0.0.1:notaport', 'http://127.0.0.1:6379', 'redis://']) refused({ REDIS_URL: url }, 'REDIS_URL');
    for (const url of ['notaurl', 'mysql://h/db', 'postgres://h:port/db']) refused({ DATABASE_URL: url }, 'DATABASE_URL');
    for (const addr of ['garbage', 'host:0', 'host:70000', ',', 'a b:1']) refused({ RENDERER_ADDR: addr }, 'RENDERER_ADDR');
    for (const [name, value] of [['PORT', 'abc'], ['PORT', '70000'], ['METRICS_PORT', 'abc'], ['METRICS_PORT', '8.5']]) refused({ [name!]: value! }, name!);
  });
});

describe('gateway and renderer configuration: numbers', () => {
  const message = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      expect(e).to.be.instanceOf(ConfigError);
      return (e as Error).message;
    }
    throw new Error('no ConfigError');
  };
  const gw = (env: Record<string, string>) => () => loadGatewayConfig({ DATA_DIR: '/tmp/vis-config-test', ...env });

  it('a duration past what a Node timer keeps is refused: it would fire at once (a grace period of 24 days cut every request)', () => {
    expect(message(gw({ SHUTDOWN_GRACE_MS: '2147483000' }))).to.contain('SHUTDOWN_GRACE_MS: must be at most 3600000');
    expect(message(() => loadRendererConfig({ RENDERER_GRACE_MS: '3600001' }))).to.contain('RENDERER_GRACE_MS: must be at most 3600000');
    expect(message(gw({ RENDER_TIMEOUT_MS: '2147483648' }))).to.contain('RENDER_TIMEOUT_MS: must be at most 2147483647');
    expect(loadGatewayConfig({ DATA_DIR: '/tmp/vis-config-test', SHUTDOWN_GRACE_MS: '3600000' }).shutdownGraceMs).to.equal(3_600_000);
  });

  it('says in plain words what a number must be', () => {
    expect(message(gw({ RENDER_TIMEOUT_MS: 'abc' }))).to.contain('RENDER_TIMEOUT_MS: must be a whole number');
    expect(message(gw({ RENDER_TIMEOUT_MS: '1.5' }))).to.contain('RENDER_TIMEOUT_MS: must be a whole number');
    expect(message(gw({ DOWNLOAD_CONCURRENT_RENDERS: '0' }))).to.contain('DOWNLOAD_CONCURRENT_RENDERS: must be at least 1');
  });
});

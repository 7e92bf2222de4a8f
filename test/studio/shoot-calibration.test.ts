/**
 * A studio shot whose paint cannot be calibrated (baker/shoot.ts): the shot is taken a second time
 * before the model is called unfit, the re-shot is said on stderr, and the error names what the shot
 * held. The subject is built here (a painted box inside a larger occluding box), not read from a file.
 * Needs WebGL 2 (headless-gl); skipped without it unless CI=true or REQUIRE_GL=1.
 */
import assert from 'node:assert/strict';
import * as THREE from 'three';
import type { GLHandle } from '../../baker/gl.ts';
import { createShootContext, shootView } from '../../baker/shoot.ts';
import type { StudioSubject } from '../../baker/subject.ts';
import { skipWithoutWebGl } from '../support/webgl.ts';

function box(size: number, role: 'paint' | 'other'): THREE.Mesh {
  const mesh = new THREE.Mesh(new THREE.BoxGeometry(size, size, size), new THREE.MeshStandardMaterial({ color: 0x808080 }));
  mesh.position.y = 0.6;
  mesh.userData.role = role;
  return mesh;
}

function subjectOf(...meshes: THREE.Mesh[]): StudioSubject {
  const group = new THREE.Group();
  for (const m of meshes) group.add(m);
  return { group, plates: { front: null, rear: null }, size: { length: 1.2, width: 1.2, height: 1.2 }, source: { kind: 'procedural', note: 'test box' } };
}

function camera(): THREE.PerspectiveCamera {
  const cam = new THREE.PerspectiveCamera(30, 2, 0.1, 50);
  cam.position.set(4, 1.5, 4);
  cam.lookAt(0, 0.6, 0);
  cam.updateMatrixWorld();
  return cam;
}

const OPTIONS = { width: 96, height: 48, samples: 4, supersample: 1, lightDepth: 8, hasShadow: false, plate: null } as const;

describe('studio shot calibration', function () {
  this.timeout(120_000);
  let gl: GLHandle;

  before(async function () {
    await skipWithoutWebGl(this);
    gl = (await import('../../baker/gl.ts')).createGLRenderer();
  });
  after(() => gl?.dispose());

  it('calibrates a shot with visible paint at the first try, saying nothing', () => {
    const ctx = createShootContext(gl.renderer, subjectOf(box(1, 'paint')), '#808080');
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (...a: unknown[]) => warnings.push(a.map(String).join(' '));
    try {
      const shot = shootView(ctx, camera(), OPTIONS);
      assert.ok(shot.record.calibration.diffuse_gain > 0);
      assert.ok(shot.layers.paint.some((v) => v === 255));
    } finally {
      console.warn = warn;
      ctx.dispose();
    }
    assert.deepEqual(warnings, []);
  });

  it('shoots hidden paint twice, says so once, then fails naming the counts of the shot', () => {
    const ctx = createShootContext(gl.renderer, subjectOf(box(0.5, 'paint'), box(1, 'other')), '#808080');
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (...a: unknown[]) => warnings.push(a.map(String).join(' '));
    try {
      assert.throws(() => shootView(ctx, camera(), OPTIONS), /^Error: too little full-coverage paint to calibrate \(0 pixels\); \d+ covered, 0 painted, 0 fully painted pixels$/);
    } finally {
      console.warn = warn;
      ctx.dispose();
    }
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /^baker: shot 96x48 re-shot after "too little full-coverage paint to calibrate \(0 pixels\)" \([1-9]\d* covered, 0 painted, 0 fully painted pixels, GL error 0\)$/);
  });
});

import { expect } from 'chai';
import { LEVEL_CODE_VERSION, levelCode } from '../../renderer/assets/level-code.ts';
import { levelCodeDigest } from './level-code-digest.ts';

/**
 * What each LEVEL_CODE_VERSION makes of a small pseudo-random view (level-code-digest.ts). A change to
 * the decode's light table, the reductions, the shadowed base or the runs changes the digest: then
 * bump LEVEL_CODE_VERSION (level files of the old code are no longer read) and record the new digest.
 */
const DIGESTS: Record<number, string> = {
  1: 'grs0lYGYslRGlKMr8itR3m',
};

describe('level code version', () => {
  it('the running code makes the levels its LEVEL_CODE_VERSION names (bump it when this fails)', () => {
    expect(levelCodeDigest(), `levels differ from what version ${LEVEL_CODE_VERSION} made: bump LEVEL_CODE_VERSION in renderer/assets/level-code.ts and record the digest here`).to.equal(DIGESTS[LEVEL_CODE_VERSION]);
  });

  it('level files name the version and the decoder that made them', () => {
    expect(levelCode()).to.match(new RegExp(`^levels-${LEVEL_CODE_VERSION} sharp-\\d+\\.\\d+\\.\\d+ vips-\\d+\\.\\d+\\.\\d+`));
  });
});

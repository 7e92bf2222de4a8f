import type { Context } from 'mocha';

/**
 * Skips the suite (from its `before`) where no WebGL 2 context can be made, saying why; on CI, or with
 * REQUIRE_GL=1, a missing context fails instead, so a broken driver install cannot pass as skipped.
 */
export async function skipWithoutWebGl(ctx: Context): Promise<void> {
  const { createGLRenderer } = await import('../../baker/gl.ts');
  try {
    createGLRenderer().dispose();
  } catch (e) {
    if (process.env.CI === 'true' || process.env.REQUIRE_GL === '1') throw e;
    console.log(`      (skipped: no WebGL 2 context: ${(e as Error).message}; set REQUIRE_GL=1 or CI=true to fail instead)`);
    ctx.skip();
  }
}

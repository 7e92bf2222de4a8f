import { canonicalFraming, frameGeometry, layoutOf, type Box, type Layout } from '../../shared/framing.ts';
import type { SpinDescription, SpinFrameDescription } from '../../shared/render-contract.ts';
import type { ImageOptions } from '../../shared/render-options.ts';
import { spinFitBox, spinYaws, type SpinOptions } from '../../shared/spin.ts';
import { frameId } from '../../shared/shot-id.ts';
import type { Principal } from '../auth/principal.ts';
import type { VehicleRow } from '../catalog/catalog-repo.ts';
import type { ImageSigner } from '../signing/image-token.ts';
import { answerOptions } from './image-answer.ts';

export const SPIN_WARNINGS = {
  PLATE_UNMAPPED: 'No frame of this spin shows a licence plate; the plate text is not drawn',
} as const;

export interface SpinFrameAnswer {
  index: number;
  yaw_degrees: number;
  image_url: string;
  /** Where the vehicle, its ground line and its plate are in the frame; null when the frame's geometry is unknown. */
  layout: Layout | null;
}

export interface SpinAnswer {
  options: Record<string, unknown>;
  frames: SpinFrameAnswer[];
  expires_at: string;
  warnings: Array<{ code: keyof typeof SPIN_WARNINGS; message: string }>;
}

/**
 * The signed frames of a vehicle's spin (docs/api.md, "Spins"), in order of yaw: each frame a signed
 * image URL like the image call's, whose token draws the frame id, and its layout from the set's spin
 * geometry. The plate is drawn on the frames that show one; the warning says when none of the asked
 * frames does (a plate seen on some frames of a turning car is what a caller expects).
 */
export function signedSpinAnswer(
  deps: { signer: ImageSigner; publicBaseUrl: () => string },
  principal: Principal,
  opts: ImageOptions,
  spinOpts: SpinOptions,
  query: Record<string, unknown>,
  vehicle: VehicleRow,
  revision: string,
  spin: SpinDescription,
): SpinAnswer {
  const nowMs = Date.now();
  let expiresAt = new Date(nowMs);
  let plateShown = false;
  // over all 72 frames DescribeSet gives, as the renderer takes it, whatever frames were asked
  const turn = spinFitBox([...spin.frames.values()].map((f) => f.vehicleBox));
  const frames = spinYaws(spinOpts.frames).map((yaw, index): SpinFrameAnswer => {
    const id = frameId(yaw);
    const g = spin.frames.get(yaw) ?? null;
    // an unknown frame geometry (none given for this yaw) leaves the plate to the renderer
    const platePossible = g === null || g.plateQuad !== null;
    if (g?.plateQuad) plateShown = true;
    const signed = deps.signer.sign(
      {
        set: vehicle.asset_set,
        revision,
        view: id,
        color: opts.color,
        // a frame is shot with the studio shadow, as the views of a set with a 3D source are
        shadow: opts.shadow,
        plate: platePossible ? opts.plate : null,
        format: opts.format,
        width: opts.width,
        background: opts.background,
        frame: canonicalFraming(opts.frame),
        vehicle: vehicle.id,
        catalogView: id,
        org: principal.orgId,
        key: principal.keyId,
      },
      nowMs,
    );
    expiresAt = signed.expiresAt;
    return {
      index,
      yaw_degrees: yaw,
      image_url: `${deps.publicBaseUrl()}/images/${signed.token}.${opts.format}`,
      layout: g && turn ? frameLayout(opts, spin, turn, id, g) : null,
    };
  });
  const warnings: SpinAnswer['warnings'] = [];
  const everyKnown = frames.every((f) => f.layout !== null);
  if (opts.plate !== null && !plateShown && everyKnown) warnings.push({ code: 'PLATE_UNMAPPED', message: SPIN_WARNINGS.PLATE_UNMAPPED });
  return {
    options: { ...answerOptions(opts, query), frames: spinOpts.frames },
    frames,
    expires_at: expiresAt.toISOString(),
    warnings,
  };
}

/** The frame's layout: the renderer's framing geometry (shared/framing.ts) in the spin's geometry frame, the frame's own box placed by it. */
function frameLayout(opts: ImageOptions, spin: SpinDescription, turn: Box, id: ReturnType<typeof frameId>, g: SpinFrameDescription): Layout {
  const size = { width: spin.width, height: spin.height };
  // fit scales every frame by the box the whole turn sweeps (shared/spin.ts spinFitBox), as the renderer does
  const frame = frameGeometry(size, id, g.vehicleBox, opts.width, opts.frame, turn);
  return layoutOf(frame, id, g.vehicleBox, g.groundY, opts.plate !== null ? g.plateQuad : null);
}

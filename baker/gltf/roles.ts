/**
 * Roles of a glTF model's parts, from material and node names, overridable by a role map
 * (docs/studio.md, "Bring your own 3D model").
 */
import fs from 'node:fs/promises';
import { z } from 'zod';
import { ROLES, type Role } from '../subject.ts';
import { GltfInputError } from './load.ts';

/** Splits a name into lower-case words: `Light_Brake_Lens_BL` → light brake lens bl, `FrontSeat` → front seat. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
}

/**
 * Keywords per role, checked in this order (the first role with a hit wins, so `Body_Chrome` is
 * chrome and `Rim_Paint` a rim). A keyword matches a whole word, or the start of one when it ends in `*`.
 */
const KEYWORDS: Array<[Role, string[]]> = [
  ['hide', ['logo*', 'badge*', 'emblem*', 'brand*', 'lettering', 'ground', 'groundshadow*', 'backdrop', 'shadowplane', 'shadowcatcher', 'groundplane']],
  ['plate', ['plate', 'plates', 'license*', 'licence*', 'numberplate*', 'kennzeichen', 'registration']],
  ['lamp', ['lamp*', 'light', 'lights', 'headlight*', 'headlamp*', 'taillight*', 'taillamp*', 'lens', 'lenses', 'indicator*', 'blinker*', 'turnsignal*', 'reflector*', 'drl', 'led', 'leds', 'beam']],
  ['glass', ['glass', 'glas', 'window*', 'windshield*', 'windscreen*', 'windows', 'scheibe*', 'verre', 'vitre*']],
  ['interior', ['seat*', 'interior*', 'dash*', 'dashboard*', 'steering', 'cabin*', 'tissue*', 'leather*', 'fabric*', 'upholstery', 'carpet*', 'console', 'wood*', 'headliner*', 'pedal*']],
  ['tyre', ['tyre*', 'tire*', 'rubber', 'reifen', 'pneu*', 'tread*']],
  ['rim', ['rim', 'rims', 'wheel', 'wheels', 'felge*', 'hubcap*', 'alloy*', 'spoke*']],
  ['chrome', ['chrome*', 'chromed']],
  ['trim', ['trim*', 'plastic*', 'grille*', 'grill', 'mirror*', 'metal', 'metals', 'underbody', 'undercarriage', 'chassis', 'exhaust*', 'brake*', 'caliper*', 'calliper*', 'disc', 'rotor*', 'wiper*', 'handle*', 'seal*', 'gasket*']],
  ['paint', ['paint*', 'carpaint*', 'body', 'bodywork', 'bodypaint*', 'lack*', 'lacquer*', 'karosserie*', 'coachwork', 'carbody', 'livery']],
];

function wordMatches(word: string, kw: string): boolean {
  return kw.endsWith('*') ? word.startsWith(kw.slice(0, -1)) : word === kw;
}

/** The role a name suggests, or null when it says nothing. */
export function roleFromName(name: string): Role | null {
  const words = nameWords(name);
  if (words.length === 0) return null;
  // joined forms catch "car_paint", "number_plate", "wind_shield", "tail_light"
  const pairs = words.slice(1).map((w, i) => words[i]! + w);
  const all = [...words, ...pairs];
  for (const [role, kws] of KEYWORDS) {
    if (all.some((w) => kws.some((k) => wordMatches(w, k)))) return role;
  }
  return null;
}

/** Classification of a part from its material name and node names (nearest node first). */
export function classify(materialName: string, nodeNames: readonly string[]): { role: Role; why: string } {
  const mr = materialName ? roleFromName(materialName) : null;
  let nr: Role | null = null;
  let nodeHit = '';
  for (const n of nodeNames) {
    const r = roleFromName(n);
    if (r) {
      nr = r;
      nodeHit = n;
      break;
    }
  }
  // glass on a lamp node is the lamp's cover, not a window; a plate or hidden part is that whatever its material
  if (nr === 'hide' || nr === 'plate') return { role: nr, why: `node "${nodeHit}"` };
  if ((mr === 'glass' || mr === 'trim' || mr === 'chrome') && nr === 'lamp') return { role: 'lamp', why: `node "${nodeHit}" (${materialName} of a lamp)` };
  if ((mr === 'trim' || mr === 'chrome') && (nr === 'rim' || nr === 'tyre')) return { role: nr, why: `node "${nodeHit}" (${materialName} of a wheel)` };
  if (mr) return { role: mr, why: `material "${materialName}"` };
  if (nr) return { role: nr, why: `node "${nodeHit}"` };
  return { role: 'other', why: 'no telling name' };
}

// ---------------------------------------------------------------------------------------------
// The role map

const AXIS = z.enum(['+X', '-X', '+Y', '-Y', '+Z', '-Z', 'x', '-x', 'y', '-y', 'z', '-z', 'X', 'Y', 'Z']);
const vec3 = z.tuple([z.number().finite(), z.number().finite(), z.number().finite()]);
const plateRect = z.union([
  z.object({
    /** Centre of the plate face in the normalised frame (metres, nose +X, up +Y, right +Z, floor y = 0, centred). */
    center: vec3,
    /** Width and height of the plate, metres (EU plate: [0.52, 0.11]). */
    size: z.tuple([z.number().positive(), z.number().positive()]),
  }).strict(),
  z.object({ corners: z.tuple([vec3, vec3, vec3, vec3]) }).strict(),
  z.null(),
]);

export const roleMapSchema = z
  .object({
    /** Name pattern → role. A pattern matches a material or node name case-insensitively; `*` and `?` are wildcards; `material:` or `node:` restricts it. */
    roles: z.record(z.string().min(1), z.enum(ROLES)).optional(),
    /** The file's up and forward (nose) axes, e.g. "+Z" and "-Y"; found from the wheels and the bounding box when left out. */
    up: AXIS.optional(),
    forward: AXIS.optional(),
    /** Metres per file unit (0.01 for centimetres); found from the car's length when left out. */
    scale: z.number().positive().finite().optional(),
    /** Plate faces for models without plate meshes (or to replace them); null = the car has no plate there. */
    plates: z.object({ front: plateRect.optional(), rear: plateRect.optional() }).strict().optional(),
  })
  .strict();
export type RoleMap = z.infer<typeof roleMapSchema>;

export async function readRoleMap(file: string): Promise<RoleMap> {
  let raw: string;
  try {
    raw = await fs.readFile(file, 'utf8');
  } catch (e) {
    throw new GltfInputError(`cannot read the role map ${file} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    throw new GltfInputError(`role map ${file}: invalid JSON (${(e as Error).message})`);
  }
  const r = roleMapSchema.safeParse(json);
  if (!r.success) {
    const first = r.error.issues[0]!;
    throw new GltfInputError(`role map ${file}: ${first.path.join('.') || '(root)'}: ${first.message}`);
  }
  return r.data;
}

function globToRegExp(glob: string): RegExp {
  const re = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${re}$`, 'i');
}

export interface MapRule {
  pattern: string;
  scope: 'material' | 'node' | 'any';
  re: RegExp;
  role: Role;
}

export function mapRules(map: RoleMap | undefined): MapRule[] {
  return Object.entries(map?.roles ?? {}).map(([pattern, role]) => {
    const m = /^(material|node):(.*)$/i.exec(pattern);
    const scope = m ? (m[1]!.toLowerCase() as 'material' | 'node') : 'any';
    return { pattern, scope, re: globToRegExp(m ? m[2]! : pattern), role };
  });
}

/** The map's role for a part: its material name first, then its node names (nearest first). */
export function roleFromMap(rules: readonly MapRule[], materialName: string, nodeNames: readonly string[]): { role: Role; why: string } | null {
  for (const r of rules) {
    if (r.scope !== 'node' && materialName && r.re.test(materialName)) return { role: r.role, why: `map "${r.pattern}" (material)` };
  }
  for (const n of nodeNames) {
    for (const r of rules) {
      if (r.scope !== 'material' && n && r.re.test(n)) return { role: r.role, why: `map "${r.pattern}" (node "${n}")` };
    }
  }
  return null;
}

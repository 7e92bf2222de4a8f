/** `npm run bake -- gltf <file> --out <dir> [--id <set-id>] [--map <roles.json>]`: not built yet. */
export async function runGltfCli(argv: string[]): Promise<number> {
  console.error(`bake gltf: not implemented yet (${argv.join(' ')})`);
  return 2;
}

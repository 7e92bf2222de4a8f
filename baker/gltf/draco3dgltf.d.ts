/** The Draco glTF codec (Emscripten build, no typings of its own); glTF-Transform takes the modules as they are. */
declare module 'draco3dgltf' {
  const draco3d: {
    createDecoderModule(opts?: Record<string, unknown>): Promise<unknown>;
    createEncoderModule(opts?: Record<string, unknown>): Promise<unknown>;
  };
  export default draco3d;
}

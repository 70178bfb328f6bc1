// Text imports (`with { type: "text" }`): hook scripts and long help prose embedded in the binary.
declare module "*.sh" {
  const text: string;
  export default text;
}
declare module "*.md" {
  const text: string;
  export default text;
}
declare module "*opencode-plugin.js" {
  const text: string;
  export default text;
}
// File imports (`with { type: "file" }`): the shell parser's WebAssembly, embedded in the binary; the
// import is the file's path (under /$bunfs/ in a compiled umbel).
declare module "*.wasm" {
  const path: string;
  export default path;
}

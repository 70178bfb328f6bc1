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

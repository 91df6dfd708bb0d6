// Fixtures are imported as text through Vite's `?raw` suffix: the domain package stays free of node typings.
declare module '*?raw' {
  const text: string;
  export default text;
}

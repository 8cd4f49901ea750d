// sphinxcontrib-mermaid imports mermaid as an ES module; the bundled mermaid.min.js is a classic
// script (loaded first through html_js_files) that defines globalThis.mermaid. Re-export it.
export default globalThis.mermaid;

// Node has the WebAssembly global but @types/node 20 does not declare it, and lib "dom" would bring the
// browser's globals along: this is the part the log line scanner uses.
declare namespace WebAssembly {
  class Module {
    constructor(bytes: ArrayBufferView | ArrayBuffer);
  }
  class Instance {
    constructor(module: Module, imports?: object);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    readonly buffer: ArrayBuffer;
    grow(pages: number): number;
  }
  class Global {
    value: unknown;
  }
}

/** The part of js-yaml (a dependency without types of its own) that lib/yaml-document.ts uses. */
declare module "js-yaml" {
  export class Type {
    constructor(
      tag: string,
      options: {
        kind: "scalar";
        resolve: (data: string) => boolean;
        construct: (data: string) => unknown;
      },
    );
  }
  export class Schema {
    extend(types: { implicit: Type[] }): Schema;
  }
  export const FAILSAFE_SCHEMA: Schema;
  /** What the loader passes to a listener: where it is, and the node it just read (on "close"). */
  export interface LoadState {
    position: number;
    result: unknown;
    kind: "scalar" | "sequence" | "mapping" | null;
  }
  export function load(
    text: string,
    options: { schema: Schema; listener?: (event: "open" | "close", state: LoadState) => void },
  ): unknown;
}

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
  export function load(
    text: string,
    options: { schema: Schema; listener?: (event: "open" | "close") => void },
  ): unknown;
}

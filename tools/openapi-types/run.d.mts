export declare const HEADER: string
/** The text of schema.d.ts for an OpenAPI document (its JSON text). */
export declare function schemaTypes(documentJson: string): Promise<string>

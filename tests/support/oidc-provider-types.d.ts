// The part of oidc-provider 9 the test provider uses (tests/support/oidc-provider.ts; the package
// ships no types): its configuration, the Grant model, the context of its Koa middleware.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  interface ProviderContext {
    path: string;
    body: unknown;
    oidc: {
      session?: { accountId?: string };
      client?: { clientId: string };
      provider: { Grant: new (init: { clientId: string; accountId: string }) => Grant };
    };
  }
  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }
  export interface Configuration {
    clients: Array<Record<string, unknown>>;
    jwks: { keys: unknown[] };
    cookies: { keys: string[] };
    pkce: { required: () => boolean };
    claims: Record<string, string[]>;
    scopes: string[];
    conformIdTokenClaims: boolean;
    features: Record<string, { enabled: boolean } & Record<string, unknown>>;
    loadExistingGrant(ctx: ProviderContext): Promise<Grant | undefined>;
    findAccount(ctx: ProviderContext, id: string): Promise<Account | undefined>;
    ttl: Record<string, number>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    use(middleware: (ctx: ProviderContext, next: () => Promise<void>) => Promise<void>): void;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}

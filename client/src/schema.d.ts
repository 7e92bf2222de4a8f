// Generated from docs/openapi.json by `npm run client:generate` (openapi-typescript). Do not edit.

export interface paths {
    "/v1": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Service root (no key)
         * @description Not authenticated, not counted, no rate-limit headers.
         */
        get: operations["getRoot"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller: key, organization, contract with limits, usage this month
         * @description Counted like every authenticated `/v1` call (the answer's `usage.requests` includes it).
         */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/makes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List makes
         * @description Makes with at least one published vehicle in the caller's contract categories, ordered by name.
         */
        get: operations["listMakes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/makes/{make}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Models of a make (same answer as …/models)
         * @description The same answer as `GET /v1/makes/{make}/models`: the make and its models with at least one published vehicle in the caller's contract categories, each with its visible years (newest first). A make with nothing visible is 404.
         */
        get: operations["getMake"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/makes/{make}/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Models of a make
         * @description Models with at least one visible vehicle, ordered by name, each with its visible years. A make with nothing visible is 404.
         */
        get: operations["listModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/makes/{make}/models/{model}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Years of a model
         * @description Visible years, newest first, with their visible variant counts. A model with nothing visible is 404.
         */
        get: operations["listYears"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/makes/{make}/models/{model}/{year}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Vehicle and views for a year, or variant choices
         * @description Exactly one published variant in the caller's categories: `{make, model, vehicle, views}`. Several: `{make, model, year, variants}`; request `…/{year}/{variant}` next. None: 404.
         */
        get: operations["getYear"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/makes/{make}/models/{model}/{year}/{variantOrView}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Views of a variant, or a signed image for a view
         * @description Two rows of the spec share this path shape. `{variantOrView}` a view id (one of the nine): the signed image of that view of the year's single visible vehicle (answer `ImageRender`; the image options apply; a year with several visible variants is 404 asking for the variant slug). Anything else is a variant slug: the variant's vehicle and its published views (answer `VehicleViews`; the image options are ignored).
         *
         *     Validates the options and the contract, then answers JSON (not pixels) with a signed `image_url`. Rule order: 1) options (400: color, format, shadow, plate, width, background, framing, margin, aspect); 2) format not in the contract (403); 3) make, model, year, variant (404); 4) vehicle category not in the contract (403; a published vehicle outside the contract is 403 here although the catalog walk does not show it); 5) view unknown or unpublished (404); 6) `background=transparent` or `framing=fit` for a view without a coverage layer (400). `width` outside 200..2400 is clamped. Warnings (still 200): SHADOW_UNAVAILABLE when `shadow` is true and the view has no studio shadow; PLATE_UNMAPPED when `plate` is set and the view has no plate quad.
         */
        get: operations["getVariantOrImage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/makes/{make}/models/{model}/{year}/{variant}/{view}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Signed image for a view of a variant
         * @description Validates the options and the contract, then answers JSON (not pixels) with a signed `image_url`. Rule order: 1) options (400: color, format, shadow, plate, width, background, framing, margin, aspect); 2) format not in the contract (403); 3) make, model, year, variant (404); 4) vehicle category not in the contract (403; a published vehicle outside the contract is 403 here although the catalog walk does not show it); 5) view unknown or unpublished (404); 6) `background=transparent` or `framing=fit` for a view without a coverage layer (400). `width` outside 200..2400 is clamped. Warnings (still 200): SHADOW_UNAVAILABLE when `shadow` is true and the view has no studio shadow; PLATE_UNMAPPED when `plate` is set and the view has no plate quad.
         */
        get: operations["getVariantImage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search vehicles
         * @description Every query token must be a prefix of a make, model, variant or year token of the vehicle (AND), case- and accent-insensitive (`etoile` finds `Étoile`). A one-character token, or a number shorter than a year, must equal a whole token. Best first: vehicles with more whole-token matches, then make name, model name, newest year, variant name. Only published vehicles in the caller's contract categories. A query with no letter or digit gives no results.
         */
        get: operations["search"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/colors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Named colors reference
         * @description The eight named colours of the spec with their hex values (the `color` parameter also takes any 3- or 6-digit hex). Counted.
         */
        get: operations["listColors"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/views": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Studio views reference
         * @description The nine studio view ids with their labels, in catalog order. Counted.
         */
        get: operations["listViews"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/images/{token}.{ext}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download a signed image (not a /v1 call, not counted)
         * @description The `image_url` of an image answer. No key; the token is an HS256 JWT (issuer and audience checked, `kid` selects the signing key so keys can rotate, `exp` enforced) carrying the canonical render request. A matching `If-None-Match` answers 304 without rendering. Until a renderer is reachable the gateway answers 503 `unavailable`. A spin frame's URL (GET /v1/vehicles/{vehicle_id}/spin) is downloaded the same way; its grant also needs the contract's `spin` feature (403), and a frame not shot yet is shot first (it may answer 503 with Retry-After while it is).
         */
        get: operations["downloadImage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * Headers of a signed image, without the bytes
         * @description As GET, without a body (the image is still rendered to know its length).
         */
        head: operations["headImage"];
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness
         * @description Liveness: 200 while the process serves HTTP. No key, not counted.
         */
        get: operations["healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness (the database answers)
         * @description Readiness: 200 when the database answers, 503 while it does not or while the gateway drains on shutdown (take it out of the load balancer). No key, not counted.
         */
        get: operations["readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This OpenAPI 3.1 document
         * @description This OpenAPI 3.1 document, as JSON. No key, not counted. The typed client in `client/` is generated from it.
         */
        get: operations["openapi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readable HTML page (Swagger UI) of this document
         * @description A readable HTML page (Swagger UI, served by the gateway, no CDN) of this document.
         */
        get: operations["docsPage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/categories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List vehicle categories
         * @description The vehicle categories contracts may name, by slug.
         */
        get: operations["adminListCategories"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/organizations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List organizations
         * @description Every organization, oldest first.
         */
        get: operations["adminListOrganizations"];
        put?: never;
        /**
         * Create an organization
         * @description Creates an organization. It can call nothing until it has an active contract and a key.
         */
        post: operations["adminCreateOrganization"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/organizations/{org}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An organization with its contract, keys and members
         * @description An organization with its contract (null when it has none), its keys (no secrets) and its members.
         */
        get: operations["adminGetOrganization"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/organizations/{org}/contract": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization's contract
         * @description The organization's contract, or 404 when it has none.
         */
        get: operations["adminGetContract"];
        /**
         * Create or replace the contract
         * @description Creates or replaces the organization's contract (the body of DESIGN.md). The optional `allowed_origins` lists the browser origins whose pages may call `/v1` with the organization's keys (CORS); a body without it keeps the current list. Takes effect on every gateway instance within 1 s with Redis, within `AUTH_CACHE_TTL_MS` (default 4 s) otherwise.
         */
        put: operations["adminPutContract"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/organizations/{org}/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an API key (the secret is shown only here)
         * @description Creates an API key. The full secret is in this answer only; the gateway stores only a keyed hash of it.
         */
        post: operations["adminCreateKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/keys/{id}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke a key (idempotent)
         * @description Revokes a key (idempotent). Every gateway refuses it within 1 s with Redis (the auth cache TTL otherwise); its image URLs stop downloading too.
         */
        post: operations["adminRevokeKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/organizations/{org}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add a member
         * @description Adds a member (by email) to the organization; an email already there is 400.
         */
        post: operations["adminAddMember"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/members/{id}/ban": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Ban a member (every key of the organization then fails with 403)
         * @description Bans a member: while any member is banned every key of the organization fails with 403 and nothing is counted.
         */
        post: operations["adminBanMember"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/members/{id}/unban": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Lift a member's ban
         * @description Lifts a member's ban; the organization's keys work again once no member is banned.
         */
        post: operations["adminUnbanMember"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/members/{id}/sign-in-links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue a single-use dashboard sign-in link for a member
         * @description Creates a single-use sign-in link to the customers' dashboard for this member, valid for DASHBOARD_LINK_TTL_SECONDS (default 15 minutes). The token sits in the URL's fragment, so it never reaches server logs or Referer headers; the dashboard's sign-in page posts it. Only a hash of the token is stored. While any member of the organisation is banned no link is issued (403). Registered when the gateway serves the dashboard (always, in the standard start). See docs/dashboard.md.
         */
        post: operations["adminCreateSignInLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/organizations/{org}/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Counted /v1 calls this UTC month
         * @description The organization's counted `/v1` calls this UTC month (the limiter's count, as `GET /v1/me`).
         */
        get: operations["adminUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/vehicles/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Publish or unpublish a vehicle
         * @description Publishes or unpublishes a vehicle: an unpublished vehicle disappears from the catalog walk, search and images (404), its image URLs stop downloading.
         */
        patch: operations["adminPublishVehicle"];
        trace?: never;
    };
    "/admin/v1/vehicles/{id}/views/{view}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Publish or unpublish one view of a vehicle
         * @description Publishes or unpublishes one view of a vehicle: an unpublished view is 404 to image calls and its URLs stop downloading.
         */
        patch: operations["adminPublishView"];
        trace?: never;
    };
    "/admin/v1/catalog/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import a catalog file (JSON or CSV)
         * @description Validates the whole file, checks that every asset set exists, then upserts categories, makes, models, vehicles and their views in one transaction (nothing is written when anything is wrong). What the file does not mention is left as it is. `Content-Type: application/json` for `vehicle-catalog/v1`, `text/csv` for the flat list (docs/catalog.md). At most 20 MB.
         */
        post: operations["adminImportCatalog"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/catalog/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export the whole catalog as vehicle-catalog/v1 JSON
         * @description Importing the result changes nothing. Every variant carries `published` and `unpublished_views` explicitly.
         */
        get: operations["adminExportCatalog"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/vehicles/{vehicle_id}/images": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Signed images of several views of a vehicle (batch)
         * @description One call, counted once (kind `batch`), answers the signed image of every published view of the vehicle, or of the views listed in `views`, with one set of options. Every rule of the single image call applies to each view, in the same order: 1) options and `views` (400); 2) format not in the contract (403); 3) vehicle unknown or unpublished (404); 4) vehicle category not in the contract (403); 5) a listed view not published (404 for the whole call); 6) `background=transparent` or `framing=fit` for a view without a coverage layer (400 for the whole call). `width` is clamped to 200..2400. Warnings and `layout` are per view (SHADOW_UNAVAILABLE, PLATE_UNMAPPED). Each `image_url` is a normal signed download URL (not counted). The path lies outside the spec's `/v1/makes/…` tree, so it never collides with a catalog path.
         */
        get: operations["getVehicleImages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organisation's calls of a UTC month, per day, key and kind
         * @description Counted like every `/v1` call (kind `account`). The figures the dashboard's usage chart shows: `requests`/`remaining` from the limiter (as `GET /v1/me`), and the split per day, per key (the dashboard playground as key null) and per kind of call.
         */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Model Context Protocol (Streamable HTTP)
         * @description One JSON-RPC message of the Model Context Protocol (initialize, tools/list, tools/call, …), answered as JSON; stateless, so any instance answers any message and GET (a session's event stream) is 405. Send `Accept: application/json, text/event-stream` (MCP clients do). The key is `x-api-key`, or `Authorization: Bearer <key>` for clients that only send bearer tokens; only its presence is checked here. Tools: list_makes, list_models, list_years, get_vehicle, search_vehicles, render_image, list_colors, list_views, get_usage (README, docs/api.md). Each tool call is one `/v1` call with the caller's key, made by the gateway to itself: the key, ban, contract and limits are checked and the call is counted exactly as that `/v1` call; its `{error, message}` comes back as a tool error (`isError`) with the same text. Listing tools and initializing call nothing and are not counted.
         */
        post: operations["mcp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization's events, oldest first (polling instead of webhooks)
         * @description Counted like every `/v1` call. Events are kept 30 days. Poll with `after` set to the previous answer's `next`.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/organizations/{org}/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List an organization's webhook endpoints (never their secrets)
         * @description Every endpoint of the organization, oldest first, with whether a 410 answer disabled it.
         */
        get: operations["adminListWebhooks"];
        put?: never;
        /**
         * Create a webhook endpoint (the secret is shown only here)
         * @description At most 5 per organization. The URL is checked at once (https, a public address after resolution) and again at every delivery.
         */
        post: operations["adminCreateWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description Removes the endpoint and its pending deliveries; nothing more is sent to it.
         */
        delete: operations["adminDeleteWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/webhooks/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Give a webhook endpoint a new secret
         * @description The new secret is shown only here. For 24 hours each delivery is signed by both the old and the new secret (two signatures in webhook-signature), so receivers can switch without losing one.
         */
        post: operations["adminRotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A webhook endpoint's latest deliveries (the delivery log)
         * @description The 50 latest deliveries, newest first: status, attempts, the receiver's last status or the error.
         */
        get: operations["adminListWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/vehicles/{vehicle_id}/spin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Signed frames of a turntable around a vehicle (spin)
         * @description One call, counted once (kind `spin`), answers `frames` signed image URLs of the vehicle turning in place: a studio shot every 360/`frames` degrees of yaw from its set's 3D source, with one set of options (docs/api.md, "Spins"). Yaw 0 is the front view's camera; it grows as the camera turns towards the vehicle's left side, so side_left is at 90. A contract feature: the contract must include `spin`. Rules, in order: 1) options (400: `frames` one of 8, 12, 24, 36, 72; `width` an integer, clamped into 200..1600; the others as on the image call, same messages); 2) format not in the contract (403); 3) the contract without `spin` (403 "Spin is not included in this contract"); 4) vehicle unknown or unpublished (404); 5) vehicle category not in the contract (403); 6) the vehicle's set has no 3D source (404 "No spin is available for this vehicle"); 503 `unavailable` with Retry-After while no renderer can tell. Every frame can be drawn on a transparent background and with `framing=fit`. The plate is drawn on the frames that show one; PLATE_UNMAPPED only when none does. Each `image_url` is a normal signed download URL (not counted) whose grant also needs the contract's `spin` feature.
         */
        get: operations["getVehicleSpin"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    event: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An event, as POSTed to a webhook endpoint
         * @description Standard Webhooks: `webhook-id` (the event id, the same on every retry), `webhook-timestamp` (Unix seconds), `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` keyed with the secret's bytes; two, space separated, during a rotation). A 2xx answer means delivered; 410 disables the endpoint; anything else or no answer within WEBHOOK_TIMEOUT_MS is retried with backoff for 24 hours.
         */
        post: operations["receiveEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description Every error answer, with exactly these two fields. `message` is a fixed, public text per case (never internal detail). */
        Error: {
            /**
             * @description Machine-readable code.
             * @enum {string}
             */
            error: "bad_request" | "unauthorized" | "forbidden" | "not_found" | "rate_limited" | "quota_exceeded" | "payload_too_large" | "unsupported_media_type" | "request_timeout" | "not_acceptable" | "method_not_allowed" | "headers_too_large" | "unavailable" | "deadline_exceeded" | "resource_exhausted" | "internal";
            /** @description Human-readable text; the exact texts of the spec's 403 table are listed under the 403 answers. */
            message: string;
        };
        Root: {
            /** @example vehicle-image-service */
            name: string;
            /**
             * @description Semantic version of the service (package.json).
             * @example 1.0.0
             */
            version: string;
            /**
             * @description Path of this OpenAPI document.
             * @constant
             */
            docs: "/docs/openapi.json";
        };
        Make: {
            /** @example mk_nzz9V2z0pAEwzSaH */
            id: string;
            /**
             * @description Used in paths.
             * @example aurelia
             */
            slug: string;
            /**
             * @description Display name.
             * @example Aurelia
             */
            name: string;
        };
        ModelRef: {
            /** @example md_vs5FuYg-e9J8V5Zy */
            id: string;
            /** @example vento */
            slug: string;
            /** @example Vento */
            name: string;
        };
        MakeList: {
            /** @description Makes with at least one visible vehicle, ordered by name. */
            makes: components["schemas"]["Make"][];
        };
        /** @description A model of a make, as listed by `GET /v1/makes/{make}/models`. */
        ModelEntry: {
            id: string;
            slug: string;
            name: string;
            /**
             * @description Years with at least one visible vehicle, newest first.
             * @example [
             *       2024,
             *       2023
             *     ]
             */
            years: number[];
        };
        ModelList: {
            make: components["schemas"]["Make"];
            /** @description Models with at least one visible vehicle, ordered by name. */
            models: components["schemas"]["ModelEntry"][];
        };
        YearEntry: {
            /** @example 2024 */
            year: number;
            /** @description Visible variants (vehicles) of that year. 1: `GET …/{year}` answers the vehicle and its views; more: it answers the variant choices. */
            variant_count: number;
        };
        YearList: {
            make: components["schemas"]["Make"];
            model: components["schemas"]["ModelRef"];
            /** @description Newest first. */
            years: components["schemas"]["YearEntry"][];
        };
        /** @description The vehicle object of catalog and image answers: the spec's fields plus the three slugs. */
        Vehicle: {
            /** @example veh_Ks5ljWWY2M-wQQdJ */
            id: string;
            /** @description Display name. */
            make: string;
            /** @description Display name. */
            model: string;
            year: number;
            /** @description Display name; null when the year has no variant distinction. */
            variant: string | null;
            /** @description Category display name. */
            category: string;
            category_id: string;
            /** @description Additive to the spec: slugs for building paths. */
            make_slug: string;
            model_slug: string;
            /** @description Null exactly when `variant` is null. */
            variant_slug: string | null;
        };
        /**
         * @description One of the nine studio views.
         * @enum {string}
         */
        ViewId: "front_left" | "front" | "front_right" | "side_right" | "rear_right" | "rear" | "rear_left" | "side_left" | "top_down";
        /** @enum {string} */
        ImageFormat: "webp" | "png" | "jpeg";
        /** @enum {string} */
        ColorName: "red" | "blue" | "green" | "white" | "black" | "silver" | "yellow" | "orange";
        /** @description One vehicle and its published views. */
        VehicleViews: {
            make: components["schemas"]["Make"];
            model: components["schemas"]["ModelRef"];
            vehicle: components["schemas"]["Vehicle"];
            /** @description Published views of the vehicle, in the spec's order (a subset of the nine). */
            views: components["schemas"]["ViewId"][];
        };
        VariantEntry: {
            /**
             * @description Variant slug to put in the path.
             * @example gt
             */
            slug: string;
            /** @example GT */
            name: string;
            vehicle_id: string;
            /** @description Category display name. */
            category: string;
            category_id: string;
        };
        /** @description The year has several visible variants: pick one and request `…/{year}/{variant}`. */
        VariantChoices: {
            make: components["schemas"]["Make"];
            model: components["schemas"]["ModelRef"];
            year: number;
            /** @description Visible variants, ordered by name. */
            variants: components["schemas"]["VariantEntry"][];
        };
        YearDetail: components["schemas"]["VehicleViews"] | components["schemas"]["VariantChoices"];
        ImageOptions: {
            /** @description Resolved colour: upper-case hex, 6 digits, leading `#`. */
            color: string;
            /** @description The named colour when a name was passed or `color` was omitted (default `white`); null for a custom hex. */
            color_name: components["schemas"]["ColorName"] | null;
            /** @description As requested (default true). When the view has no studio shadow the image has none and a SHADOW_UNAVAILABLE warning is added. */
            shadow: boolean;
            /** @description The plate text exactly as requested (the image draws it upper-cased with spaces collapsed). Present only when `plate` was supplied. */
            plate?: string;
            format: components["schemas"]["ImageFormat"];
            /** @description After clamping. */
            width: number;
            /**
             * @description Present only when `background` was supplied: as requested, lower-cased. `transparent`: the car and its studio shadow (as partial opacity) on an empty canvas; webp and png only.
             * @enum {string}
             */
            background?: "studio" | "transparent";
            /**
             * @description Present only when `framing` was supplied: as requested, lower-cased.
             * @enum {string}
             */
            framing?: "studio" | "fit";
            /** @description Present only when `margin` was supplied. */
            margin?: number;
            /**
             * @description Present only when `aspect` was supplied.
             * @enum {string}
             */
            aspect?: "16:9" | "3:2" | "4:3" | "1:1" | "2:1";
        };
        Warning: {
            /** @enum {string} */
            code: "SHADOW_UNAVAILABLE" | "PLATE_UNMAPPED";
            /**
             * @example This view has no studio shadow; the image is rendered without one
             * @example This view shows no licence plate; the plate text is not drawn
             * @example No frame of this spin shows a licence plate; the plate text is not drawn
             */
            message: string;
        };
        ImageRender: {
            vehicle: components["schemas"]["Vehicle"];
            view: components["schemas"]["ViewId"];
            options: components["schemas"]["ImageOptions"];
            /**
             * Format: uri
             * @description `PUBLIC_BASE_URL/images/<token>.<format>`: a signed URL, valid until `expires_at`. Identical requests within the same tenth of the lifetime get the identical URL.
             */
            image_url: string;
            /**
             * Format: date-time
             * @description Additive to the spec: when `image_url` stops working (ISO 8601, UTC). Lifetime `IMAGE_URL_TTL_SECONDS` (default 86400) rounded up to the next multiple of a tenth of it.
             */
            expires_at: string;
            warnings: components["schemas"]["Warning"][];
            /** @description The picture's layout; null only when no renderer could be asked for the set's geometry (then the download cannot render either). */
            layout: components["schemas"]["Layout"] | null;
        };
        YearChild: components["schemas"]["VehicleViews"] | components["schemas"]["ImageRender"];
        SearchResult: {
            make: string;
            makeSlug: string;
            model: string;
            modelSlug: string;
            year: number;
            variant: string | null;
            /** @description Additive to the spec. */
            variantSlug: string | null;
            /** @description Category display name. */
            category: string;
        };
        SearchResults: {
            /** @description Best first; at most `limit`. */
            results: components["schemas"]["SearchResult"][];
        };
        Color: {
            name: components["schemas"]["ColorName"];
            hex: string;
        };
        ColorList: {
            colors: components["schemas"]["Color"][];
        };
        View: {
            id: components["schemas"]["ViewId"];
            /** @enum {string} */
            label: "Front left" | "Front" | "Front right" | "Side right" | "Rear right" | "Rear" | "Rear left" | "Side left" | "Top down";
        };
        ViewList: {
            views: components["schemas"]["View"][];
        };
        Category: {
            id: string;
            slug: string;
            name: string;
        };
        Me: {
            organization: {
                id: string;
                name: string;
            };
            key: {
                id: string;
                /** @description The name given at creation, or null. */
                name: string | null;
                /**
                 * @description First characters of the key, for recognising it (the full key is never shown again).
                 * @example svc_live_ZtiXDL
                 */
                prefix: string;
            };
            contract: {
                /** @description Always true here (an inactive contract answers 403). */
                active: boolean;
                /** @description The contract's vehicle categories, ordered by name. */
                categories: components["schemas"]["Category"][];
                allowed_formats: components["schemas"]["ImageFormat"][];
                /** @description Requests per minute per key. */
                rpm_limit: number;
                /** @description Requests per UTC month for the organization. */
                monthly_quota: number;
                /** @description The contract's features; empty when it has none. */
                features: components["schemas"]["ContractFeature"][];
            };
            usage: {
                /** @description Current UTC month. */
                month: string;
                /** @description Counted `/v1` calls of the organization this month, this one included. */
                requests: number;
                /** @description `max(0, monthly_quota − requests)`. */
                remaining: number;
            };
        };
        Health: {
            /** @constant */
            status: "ok";
        };
        Ready: {
            /** @enum {string} */
            status: "ready" | "not ready";
        };
        CategoryList: {
            /** @description Ordered by slug. */
            categories: components["schemas"]["Category"][];
        };
        Organization: {
            /** @example org_PcUqUNW6PLD9eRDQ */
            id: string;
            name: string;
        };
        OrganizationList: {
            organizations: components["schemas"]["Organization"][];
        };
        OrganizationInput: {
            /** @description 1 to 200 characters after trimming; no control characters (C0, DEL, C1), bidirectional embedding, override or isolate characters, or unpaired surrogates (400 "Invalid name: it must not contain control or text-direction characters"). */
            name: string;
        };
        KeySummary: {
            id: string;
            name: string | null;
            prefix: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            revoked_at: string | null;
        };
        Member: {
            id: string;
            /** Format: email */
            email: string;
            banned: boolean;
        };
        OrganizationDetail: {
            id: string;
            name: string;
            contract: components["schemas"]["Contract"] | null;
            keys: components["schemas"]["KeySummary"][];
            members: components["schemas"]["Member"][];
        };
        ContractInput: {
            /** @description Category slugs; an unknown slug is 400. */
            categories: string[];
            allowed_formats: components["schemas"]["ImageFormat"][];
            rpm_limit: number;
            monthly_quota: number;
            active: boolean;
            /**
             * @description Optional (additive to DESIGN.md): browser origins allowed to call `/v1` (CORS), each `http(s)://host[:port]` without a path; stored in canonical form (lower-case host, no default port). Absent: the current list is kept (a new contract: none). Anything else than an origin is 400.
             * @example [
             *       "https://app.example.com",
             *       "http://localhost:3000"
             *     ]
             */
            allowed_origins?: string[];
            /**
             * @description Optional (additive to DESIGN.md): the features the contract includes, by name (`spin`). Absent: the current list is kept (a new contract: none); `[]` removes them all. An unknown name is 400 "Unknown features: <names> (known: spin)".
             * @example [
             *       "spin"
             *     ]
             */
            features?: string[];
        };
        Contract: {
            organization_id: string;
            /** @description Category slugs, sorted. */
            categories: string[];
            /** @description In the order webp, png, jpeg. */
            allowed_formats: components["schemas"]["ImageFormat"][];
            rpm_limit: number;
            monthly_quota: number;
            active: boolean;
            /** Format: date-time */
            updated_at: string;
            /** @description Browser origins (`scheme://host[:port]`) whose pages may call `/v1` with this organisation's keys (CORS). Empty: only the gateway's `CORS_ALLOWED_ORIGINS`. */
            allowed_origins: string[];
            /** @description The contract's features, always a list (empty: none). */
            features: components["schemas"]["ContractFeature"][];
        };
        KeyInput: {
            /** @description 1 to 200 characters after trimming; no control characters (C0, DEL, C1), bidirectional embedding, override or isolate characters, or unpaired surrogates (400 "Invalid name: it must not contain control or text-direction characters"). */
            name?: string;
        };
        CreatedKey: {
            /** @example key_LV72zkFkx2IgDtz7 */
            id: string;
            /** @description The full secret. Shown only in this answer; only a keyed hash is stored. */
            key: string;
            name: string | null;
            prefix: string;
            organization_id: string;
        };
        KeyRevoked: {
            id: string;
            /** @constant */
            revoked: true;
        };
        MemberInput: {
            /** Format: email */
            email: string;
        };
        MemberCreated: {
            id: string;
            /** Format: email */
            email: string;
        };
        MemberBanState: {
            id: string;
            email: string;
            banned: boolean;
        };
        Usage: {
            month: string;
            /** @description The organization's counted `/v1` calls this UTC month. */
            requests: number;
        };
        PublishInput: {
            published: boolean;
        };
        VehiclePublished: {
            id: string;
            published: boolean;
        };
        ViewPublished: {
            vehicle_id: string;
            view: components["schemas"]["ViewId"];
            published: boolean;
        };
        CatalogVariant: {
            /** @description Null (with `name` null) only when the year has a single variant. Never one of the nine view ids. */
            slug: string | null;
            name: string | null;
            /** @description A slug from the file's `categories`. */
            category: string;
            /** @description An asset set the gateway can read (`assets/<set>/set.json`). */
            asset_set: string;
            /** @default true */
            published: boolean;
            /** @default [] */
            unpublished_views: components["schemas"]["ViewId"][];
        };
        CatalogYear: {
            year: number;
            variants: components["schemas"]["CatalogVariant"][];
        };
        CatalogModel: {
            slug: string;
            name: string;
            years: components["schemas"]["CatalogYear"][];
        };
        CatalogMake: {
            slug: string;
            name: string;
            models: components["schemas"]["CatalogModel"][];
        };
        /** @description The catalog exchange format `vehicle-catalog/v1` (docs/catalog.md). */
        CatalogFile: {
            /** @constant */
            format: "vehicle-catalog/v1";
            categories: {
                slug: string;
                name: string;
            }[];
            makes: components["schemas"]["CatalogMake"][];
        };
        ImportSummary: {
            imported: {
                categories: number;
                makes: number;
                models: number;
                vehicles: number;
                /** @description Vehicle views written (one per view of each variant's asset set). */
                views: number;
            };
        };
        /** @description One view of a batch answer: the single image answer of that view, without the vehicle (given once above). */
        BatchImage: {
            view: components["schemas"]["ViewId"];
            options: components["schemas"]["ImageOptions"];
            /**
             * Format: uri
             * @description `PUBLIC_BASE_URL/images/<token>.<format>`: a signed URL, valid until `expires_at`. Identical requests within the same tenth of the lifetime get the identical URL.
             */
            image_url: string;
            /**
             * Format: date-time
             * @description Additive to the spec: when `image_url` stops working (ISO 8601, UTC). Lifetime `IMAGE_URL_TTL_SECONDS` (default 86400) rounded up to the next multiple of a tenth of it.
             */
            expires_at: string;
            warnings: components["schemas"]["Warning"][];
            /** @description The picture's layout; null only when no renderer could be asked for the set's geometry (then the download cannot render either). */
            layout: components["schemas"]["Layout"] | null;
        };
        BatchImages: {
            /** @description The vehicle asked for. */
            vehicle_id: string;
            vehicle: components["schemas"]["Vehicle"];
            /** @description In the order of `views`, or every published view in catalog order (empty when the vehicle has none). */
            images: components["schemas"]["BatchImage"][];
        };
        /** @description The per-day, per-key and per-kind split is written behind (within about a second); `requests` is authoritative. */
        UsageReport: {
            month: string;
            /** @description The contract's monthly quota (as `GET /v1/me`). */
            monthly_quota: number;
            /** @description The limiter's count of the organisation's calls that month (the same figure as `GET /v1/me`, this call included). */
            requests: number;
            /** @description `max(0, monthly_quota − requests)`. */
            remaining: number;
            /** @description Every day of the month up to today (the whole month when past), oldest first. */
            days: {
                /** Format: date */
                date: string;
                requests: number;
            }[];
            /** @description Calls per key, most first. `key_id` null: the dashboard playground (the organisation's own calls without a key). */
            by_key: {
                key_id: string | null;
                name: string | null;
                prefix: string | null;
                requests: number;
            }[];
            /** @description Calls per kind, every kind listed: `catalog` (makes … views listings, reference calls, unknown paths), `search`, `image` (image JSON), `batch` (`/v1/vehicles/{vehicle_id}/images`), `spin` (`/v1/vehicles/{vehicle_id}/spin`), `account` (`/v1/me`, `/v1/usage`). */
            by_kind: {
                /** @enum {string} */
                kind: "catalog" | "search" | "image" | "batch" | "spin" | "account";
                requests: number;
            }[];
        };
        /**
         * @description The kinds of event (docs/events.md).
         * @enum {string}
         */
        EventType: "quota.threshold" | "key.created" | "key.revoked" | "contract.updated" | "access.disabled" | "access.restored";
        /** @description One event: the body of a webhook delivery and an entry of GET /v1/events. `data` depends on `type`: quota.threshold `{threshold, used, quota, month}`; key.created `{key_id, name}`; key.revoked `{key_id}`; contract.updated the contract as GET /v1/me shows it; access.disabled `{reason: "member_banned", member_id}`; access.restored `{member_id}`. */
        Event: {
            /** @description Unique; ids sort (as strings) in the order the events were written. The webhook-id header of its deliveries. */
            id: string;
            type: components["schemas"]["EventType"];
            /** Format: date-time */
            created_at: string;
            organization_id: string;
            data: {
                [key: string]: unknown;
            };
        };
        EventFeed: {
            /** @description Oldest first. */
            events: components["schemas"]["Event"][];
            /** @description The `after` of the next call: the last event's id, or the given `after` when nothing is newer (null before any event). */
            next: string | null;
        };
        WebhookInput: {
            /** @description https, never a private, loopback or link-local address (also after DNS resolution), unless the gateway runs with WEBHOOK_ALLOW_PRIVATE_TARGETS=true. */
            url: string;
            /** @description The types to send; empty or absent: all. */
            events?: components["schemas"]["EventType"][];
        };
        Webhook: {
            id: string;
            url: string;
            events: components["schemas"]["EventType"][];
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description Set when the receiver answered 410 Gone: nothing more is sent.
             */
            disabled_at: string | null;
            disabled_reason: string | null;
        };
        CreatedWebhook: {
            id: string;
            url: string;
            events: components["schemas"]["EventType"][];
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description Set when the receiver answered 410 Gone: nothing more is sent.
             */
            disabled_at: string | null;
            disabled_reason: string | null;
            /** @description `whsec_` and the base64 of 32 random bytes: the HMAC key of the webhook-signature header. Shown only here. */
            secret: string;
        };
        WebhookList: {
            webhooks: components["schemas"]["Webhook"][];
        };
        WebhookDeleted: {
            id: string;
            /** @constant */
            deleted: true;
        };
        WebhookSecret: {
            id: string;
            secret: string;
            /**
             * Format: date-time
             * @description Until then each delivery carries a signature by the old secret too.
             */
            previous_secret_expires_at: string;
        };
        WebhookDelivery: {
            event_id: string;
            type: components["schemas"]["EventType"];
            /** @enum {string} */
            status: "pending" | "delivered" | "failed";
            attempts: number;
            /** Format: date-time */
            last_attempt_at: string | null;
            /** @description The receiver's HTTP status; null when none came. */
            last_status: number | null;
            last_error: string | null;
            /** Format: date-time */
            next_attempt_at: string | null;
        };
        WebhookDeliveryList: {
            deliveries: components["schemas"]["WebhookDelivery"][];
        };
        /** @description Where things are in the picture, in output pixels, after width clamping and framing; computed from the asset set's data (the vehicle box the renderer finds in each view's coverage layer), without decoding the picture. */
        Layout: {
            /** @description The picture's width. */
            width: number;
            /** @description The picture's height: `round(width / aspect)`. */
            height: number;
            /** @description The vehicle's bounding box (its non-transparent pixels on a transparent background, to within 2 px), rounded out to whole pixels and clipped to the picture. */
            vehicle_box: {
                x: number;
                y: number;
                width: number;
                height: number;
            };
            /** @description The ground line (the bottom of the vehicle box); null for `top_down`. */
            ground_y: number | null;
            /** @description The plate's four corners `[x, y]`, clockwise from top-left; null where no plate is drawn (no `plate`, or the view shows none). */
            plate_quad: number[][] | null;
        };
        /**
         * @description A call sold apart from the image calls: `spin` for GET /v1/vehicles/{vehicle_id}/spin (docs/api.md, "Contract features").
         * @enum {string}
         */
        ContractFeature: "spin";
        SpinOptions: {
            /** @description Resolved colour: upper-case hex, 6 digits, leading `#`. */
            color: string;
            /** @description The named colour when a name was passed or `color` was omitted (default `white`); null for a custom hex. */
            color_name: components["schemas"]["ColorName"] | null;
            /** @description As requested (default true). Spin frames are shot with the studio shadow. */
            shadow: boolean;
            /** @description The plate text exactly as requested (the image draws it upper-cased with spaces collapsed). Present only when `plate` was supplied. */
            plate?: string;
            format: components["schemas"]["ImageFormat"];
            /** @description After clamping into 200..1600. */
            width: number;
            /**
             * @description Present only when `background` was supplied: as requested, lower-cased. `transparent`: the car and its studio shadow (as partial opacity) on an empty canvas; webp and png only.
             * @enum {string}
             */
            background?: "studio" | "transparent";
            /**
             * @description Present only when `framing` was supplied: as requested, lower-cased.
             * @enum {string}
             */
            framing?: "studio" | "fit";
            /** @description Present only when `margin` was supplied. */
            margin?: number;
            /**
             * @description Present only when `aspect` was supplied.
             * @enum {string}
             */
            aspect?: "16:9" | "3:2" | "4:3" | "1:1" | "2:1";
            /** @enum {integer} */
            frames: 8 | 12 | 24 | 36 | 72;
        };
        SpinFrame: {
            /** @description 0 for the first frame (yaw 0), in order of yaw. */
            index: number;
            /** @description The camera's angle around the vehicle: 0 is the front view's camera; it grows as the camera turns towards the vehicle's left side (90 shows the left side like side_left, 180 the rear, 270 the right side). */
            yaw_degrees: number;
            /**
             * Format: uri
             * @description A signed, expiring download URL like the image call's (GET /images/{token}.{ext}; not counted). Its picture is shot on demand the first time: a cold frame may be answered 503 with Retry-After while it is shot.
             */
            image_url: string;
            /** @description Where the vehicle, its ground line and its plate are in this frame (output pixels; `plate_quad` null where the frame shows no plate or none was asked); null when the frame's geometry is unknown. */
            layout: components["schemas"]["Layout"] | null;
        };
        Spin: {
            vehicle: components["schemas"]["Vehicle"];
            options: components["schemas"]["SpinOptions"];
            /** @description `frames` frames in order of yaw, evenly spaced from 0. */
            frames: components["schemas"]["SpinFrame"][];
            /**
             * Format: date-time
             * @description When the frames' URLs expire (all expire together).
             */
            expires_at: string;
            /** @description PLATE_UNMAPPED when `plate` was given and none of the frames shows a plate. */
            warnings: components["schemas"]["Warning"][];
        };
    };
    responses: {
        /** @description No key, or a key that is unknown, malformed or revoked. Not counted; no rate-limit headers. */
        Unauthorized: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The organization has no active contract, or a member of the organization is banned. Not counted; no rate-limit headers. */
        Forbidden: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description As for every `/v1` call (no active contract, a banned member; not counted), or, for an admitted and counted request: the format is valid but not in the contract's `allowed_formats`, or the vehicle's category is not in the contract. A route-level 403 (format or category) comes after the call was admitted: it is counted and carries the rate-limit headers; the gate's 403 (contract, ban) is not counted and carries none. */
        ForbiddenImage: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                RateLimit: components["headers"]["RateLimit-IfCounted"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy-IfCounted"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Refused by the key's requests-per-minute limit (`rate_limited`) or the organization's monthly quota (`quota_exceeded`); when both refuse, the one with the later wait (nearly always the quota) names the answer, and `Retry-After` is that wait. A refused request moves no counter. */
        TooManyRequests: {
            headers: {
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Unknown path, or nothing visible to the caller there. Counted when the key was admitted. */
        NotFound: {
            headers: {
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Unknown make, model, year or variant, or one with no published vehicle in the caller's categories; the message names the segment (docs/api.md, "Not found: what the message names"). Counted. */
        CatalogNotFound: {
            headers: {
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Unknown make, model, year or variant; a view that is unknown or not published for the vehicle; or a view requested without the variant slug on a year with several visible variants. The message names the segment (docs/api.md, "Not found: what the message names"). Counted. */
        ImageNotFound: {
            headers: {
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description An invalid image option (checked in this order: color, format, shadow, plate, width), or a parameter given more than once. Counted. */
        ImageBadRequest: {
            headers: {
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `q` missing, blank or too long, or `limit` not an integer ≥ 1. Counted. */
        SearchBadRequest: {
            headers: {
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Unexpected failure; the detail is only in the log (find it by `X-Request-Id`). */
        Internal: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Missing or wrong `Authorization: Bearer <ADMIN_TOKEN>` (any path under /admin/v1, unknown ones included). */
        AdminUnauthorized: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Malformed JSON, a body that fails validation (the message names the first invalid field), or a malformed query. */
        AdminBadRequest: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Unknown organization, key, member, vehicle or view. */
        AdminNotFound: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The body is over its limit after decompression: `ADMIN_BODY_LIMIT_KB` (8 KB) on every admin call, `CATALOG_IMPORT_LIMIT_MB` (20 MB) on `POST /admin/v1/catalog/import`; or it inflates more than `MAX_COMPRESSION_RATIO` times. */
        PayloadTooLarge: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The URL's grant no longer holds: a member of the organisation is banned, the contract is not active, or it no longer allows the format or the vehicle's category (the spec's 403 messages). */
        DownloadForbidden: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin-Any"];
                "Cross-Origin-Resource-Policy": components["headers"]["Cross-Origin-Resource-Policy"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Over the organisation's download guard (docs/limits.md): its per-minute cache-miss renders are spent, or a download over its renders in flight found the wait for a slot full (`DOWNLOAD_QUEUED_RENDERS`) or waited longer than `DOWNLOAD_QUEUE_WAIT_MS`. Below those, a download waits for a slot instead of being refused. */
        DownloadTooManyRequests: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin-Any"];
                "Cross-Origin-Resource-Policy": components["headers"]["Cross-Origin-Resource-Policy"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request body was not received within its deadline (BODY_TIMEOUT_MS). */
        RequestTimeout: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A path segment with malformed percent-encoding (for example `%ZZ`). Counted, after the key is admitted. */
        MalformedPath: {
            headers: {
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Invalid options (as the single image call), an invalid `views` list, or background=transparent for a listed view without a coverage layer. Counted. */
        BatchBadRequest: {
            headers: {
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The vehicle is unknown or unpublished, or a listed view is not published for it (the whole call is 404: a view asked for by name is never silently left out). Counted. */
        BatchNotFound: {
            headers: {
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `month` is not a UTC month `YYYY-MM`. Counted. */
        UsageBadRequest: {
            headers: {
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The body is not JSON (or, on the catalog import, CSV): another type such as XML or multipart, or a form, plain text or no Content-Type whose body is not JSON (JSON sent that way is read); or a charset other than UTF-8. */
        UnsupportedMediaType: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request itself is malformed: broken percent-encoding in the query (under `/v1` checked after the key is admitted, and counted; under `/admin/v1` after the token), a URL over 8,192 characters, or an HTTP/1.1 request without `Host`. */
        MalformedRequest: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Too many failed admin authentications from this client address (`ADMIN_AUTH_FAILURES_PER_MINUTE`, 20 a minute; an IPv6 /64 five times that), the correct token included until the minute passes. */
        AdminTooManyRequests: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Broken percent-encoding in the query (for example `%ZZ`), checked after the key is admitted: counted. */
        V1MalformedQuery: {
            headers: {
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request itself is malformed: broken percent-encoding in the query, a URL over 8,192 characters, or an HTTP/1.1 request without `Host`. */
        V1RootMalformed: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `after` is not an event id, or `limit` not a positive integer. Counted. */
        EventsBadRequest: {
            headers: {
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Unknown organization or webhook endpoint. */
        WebhookNotFound: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The organization already has 5 endpoints. */
        WebhookForbidden: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": "forbidden",
                 *       "message": "An organization can have at most 5 webhook endpoints; delete one to create another"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Invalid options (the image call's rules and messages; `frames` and `width` the spin's own). Counted. */
        SpinBadRequest: {
            headers: {
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description As for every `/v1` call (no active contract, a banned member; not counted), or, for an admitted and counted request: the format is not in the contract's `allowed_formats`, the contract does not include the `spin` feature, or the vehicle's category is not in the contract (carrying the rate-limit headers). */
        SpinForbidden: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                RateLimit: components["headers"]["RateLimit-IfCounted"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy-IfCounted"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The vehicle is unknown or unpublished, or its asset set has no 3D source to shoot frames from. Counted. */
        SpinNotFound: {
            headers: {
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No renderer can be reached to tell whether the vehicle's set has a spin (or the database cannot be reached). Counted when admitted. */
        SpinUnavailable: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Vary: components["headers"]["Vary"];
                "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                RateLimit: components["headers"]["RateLimit-IfCounted"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy-IfCounted"];
                /**
                 * @description Seconds to wait (5).
                 * @example 5
                 */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /**
         * @description Make slug.
         * @example aurelia
         */
        make: string;
        /**
         * @description Model slug.
         * @example vento
         */
        model: string;
        /**
         * @description The year number, four digits (anything else is 404).
         * @example 2023
         */
        year: number;
        /**
         * @description Variant slug (from the variant choices of the year).
         * @example gt
         */
        variant: string;
        /**
         * @description One of the nine view ids; it must be published for the vehicle.
         * @example front
         */
        view: components["schemas"]["ViewId"];
        /** @description A view id (one of the nine) asks for an image; anything else is taken as a variant slug (variant slugs never equal a view id). */
        variantOrView: string;
        /**
         * @description A named colour (case-insensitive: red, blue, green, white, black, silver, yellow, orange) or a hex value of 3 or 6 digits with or without a leading `#` (send `#` as `%23`). Invalid: 400.
         * @example red
         */
        color: string;
        /** @description Studio shadow, a boolean-like value: `true`, `1`, `false` or `0` (case-insensitive, so `TRUE` too). A client may send a boolean (serialised as `true`/`false`). Anything else, the empty value included, is 400. */
        shadow: boolean | ("true" | "1" | "false" | "0");
        /**
         * @description EU-style registration text drawn on the view's plate quad. Normalised (Unicode NFC, leading and trailing spaces removed, runs of spaces collapsed to one) and checked before upper-casing: 1 to 12 characters of A–Z, Ä, Ö, Ü (either case), digits, spaces and hyphens, starting with a letter or digit; a tab, a line break, another Unicode space or a letter that only upper-cases into A–Z (ß, ı, ſ) is refused. Then upper-cased (`^[A-Z0-9ÄÖÜ][A-Z0-9ÄÖÜ -]*$`). Otherwise 400. `options.plate` echoes the text as requested. On a view without a plate quad the plate is not drawn and a PLATE_UNMAPPED warning is added.
         * @example AB 123
         */
        plate: string;
        /** @description `webp`, `png` or `jpeg` (case-insensitive; `jpg` is not accepted). Invalid: 400; valid but not in the contract's `allowed_formats`: 403. */
        format: "webp" | "png" | "jpeg";
        /**
         * @description Pixels. An optionally signed integer of any number of digits (`^[+-]?\d+$`); anything else (decimals, exponents, empty) is 400 "Invalid width: must be an integer number of pixels". The value is clamped into 200..2400, never rejected for its size (`1234567890` → 2400, `-5` → 200, `0000001600` → 1600).
         * @example 800
         */
        width: number;
        /**
         * @description Search text, 1 to 200 characters, not blank (missing or blank: 400), without control characters (C0, DEL, C1: 400), given once (twice: 400 "Parameter q must be given once"). Split into letter/digit tokens, case- and accent-insensitive; every token (the first 8 distinct ones) must be a prefix of a make, model, variant (name or slug) or year token of the vehicle. Broken percent-encoding in the query string (`%zz`, bytes that are not UTF-8) is 400 "The request is malformed", like in a path.
         * @example vento 2024
         */
        q: string;
        /** @description Maximum number of results: a positive integer of up to 9 digits (otherwise 400); at most 100 results are returned (a larger value is clamped to 100, not refused). Given twice: 400 "Parameter limit must be given once". */
        limit: number;
        /**
         * @description Organization id.
         * @example org_PcUqUNW6PLD9eRDQ
         */
        org: string;
        /**
         * @description API key id.
         * @example key_LV72zkFkx2IgDtz7
         */
        keyId: string;
        /** @description Member id. */
        memberId: string;
        /**
         * @description Vehicle id (from catalog answers, `vehicle.id`).
         * @example veh_Ks5ljWWY2M-wQQdJ
         */
        vehicleId: string;
        /** @description View id. */
        adminView: components["schemas"]["ViewId"];
        /** @description `studio` (default): the studio backdrop of the shot. `transparent`: the car and its shadow on a transparent canvas (straight alpha; the shadow is partial opacity, glass lets the page show through). Only with `format` webp or png (jpeg answers 400 `bad_request`), and only for views whose asset set carries a coverage layer (else 400 `bad_request`). Part of the signed URL, the cache key and the ETag. */
        background: "studio" | "transparent";
        /**
         * @description Vehicle id, as catalog answers give it (`vehicle.id`, `variants[].vehicle_id`).
         * @example veh_Ks5ljWWY2M-wQQdJ
         */
        vehicle_id: string;
        /**
         * @description View ids separated by commas (e.g. `front,rear`), answered in that order; a repeated id is answered once. Omitted: every published view of the vehicle, in catalog order. An id that is not one of the nine is 400; a listed view that is not published is 404 for the whole call.
         * @example front_left,rear
         */
        views: string;
        /**
         * @description A UTC month `YYYY-MM` (2000 to 2100); default the current one.
         * @example 2026-11
         */
        month: string;
        /** @description An event id: only events written after it. Absent: from the oldest kept (30 days). */
        eventsAfter: string;
        /** @description At most this many events (1 or more; a larger value than 100 is clamped to 100, not refused). */
        eventsLimit: number;
        /**
         * @description Webhook endpoint id.
         * @example whk_3c9Qm1pZb7u4K2aLx0VdNw
         */
        webhookId: string;
        /** @description `studio` (default): the whole studio shot inside the frame (at the default aspect, 16:9, exactly the shot; at another aspect the shot is fitted inside the frame, centred, and the studio backdrop's gradient, or transparency, fills the rest). `fit`: the vehicle's bounding box (from the view's coverage layer) is scaled so that its limiting side fills the frame less twice the margin, centred horizontally, with its ground line on the bottom margin, so the ground line is at the same height in every view (`top_down`: centred vertically). `fit` needs a coverage layer (else 400). Case-insensitive. Part of the signed URL, the cache key and the ETag. */
        framing: "studio" | "fit";
        /** @description With `framing=fit`: the margin in percent of the output's width (left and right) and of its height (top and bottom). An integer 0..40, refused (400) otherwise; ignored by `studio` framing. */
        margin: number;
        /** @description The output's aspect ratio: the height is `round(width / aspect)`. Other values: 400. */
        aspect: "16:9" | "3:2" | "4:3" | "1:1" | "2:1";
        /**
         * @description How many frames, evenly spaced from yaw 0: 8, 12, 24, 36 or 72 (anything else is 400 "Invalid frames: use 8, 12, 24, 36, 72").
         * @example 12
         */
        frames: 8 | 12 | 24 | 36 | 72;
        /**
         * @description Pixels of each frame. The image call's integer rule (anything but `^[+-]?\d+$` is 400 "Invalid width: must be an integer number of pixels"), the spin's range: clamped into 200..1600, never rejected for its size.
         * @example 400
         */
        spin_width: number;
    };
    requestBodies: never;
    headers: {
        /**
         * @description IETF draft-ietf-httpapi-ratelimit-headers (structured-field form): remaining requests `r` and seconds to reset `t` for the key's sliding minute (`"minute"`) and the organization's UTC month (`"month"`). See docs/limits.md.
         * @example "minute";r=59;t=12, "month";r=9999;t=1834562
         */
        RateLimit: string;
        /**
         * @description The two policies: `q` = limit, `w` = window in seconds (60; the length of the current UTC month).
         * @example "minute";q=60;w=60, "month";q=10000;w=2592000
         */
        "RateLimit-Policy": string;
        /**
         * @description Integer seconds after which the refused request can succeed (for `quota_exceeded`: the start of the next UTC month).
         * @example 42
         */
        "Retry-After": number;
        /** @description The request id (the client's `X-Request-Id` when it matches `^[\w.-]{1,64}$`, else a new UUID); also in the log line of the request. */
        "X-Request-Id": string;
        /**
         * @description Strong validator of the picture (asset set revision, view, colour, shadow, plate, format, width); the same across URL expiries.
         * @example "q8zW0b3i2V1m7b5vYcS0o4Zr9kQ"
         */
        ETag: string;
        /**
         * @description `public, max-age=<seconds until the token expires>, immutable`.
         * @example public, max-age=86123, immutable
         */
        "Cache-Control": string;
        "Content-Length": number;
        /**
         * @description `Origin` on every `/v1` answer: whether `Access-Control-Allow-Origin` is present depends on the request's `Origin`, so caches must key on it.
         * @example Origin
         */
        Vary: string;
        /**
         * @description The request's `Origin`, present only when that origin may read the answer (`CORS_ALLOWED_ORIGINS`, or the caller's contract `allowed_origins`). Absent without an `Origin` header.
         * @example https://app.example.com
         */
        "Access-Control-Allow-Origin": string;
        /**
         * @description With `Access-Control-Allow-Origin`: the headers a page may read.
         * @example RateLimit,RateLimit-Policy,Retry-After,X-Request-Id
         */
        "Access-Control-Expose-Headers": string;
        /** @description `*`: every page may fetch() the picture (or read why it was refused) and draw it on a canvas. */
        "Access-Control-Allow-Origin-Any": "*";
        /** @description `cross-origin`: the picture may be embedded by any site, also under Cross-Origin-Embedder-Policy. */
        "Cross-Origin-Resource-Policy": "cross-origin";
        /**
         * @description As `RateLimit`: present on a route-level 403 (format or category not in the contract: the call was admitted and counted), absent on the gate's 403 (no active contract, banned member: not counted).
         * @example "minute";r=59;t=12, "month";r=9999;t=1834562
         */
        "RateLimit-IfCounted": string;
        /**
         * @description As `RateLimit-Policy`, on the same answers as `RateLimit`.
         * @example "minute";q=60;w=60, "month";q=10000;w=2592000
         */
        "RateLimit-Policy-IfCounted": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getRoot: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Service name, version and the path of this document. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Vary: components["headers"]["Vary"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                    "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Root"];
                };
            };
            400: components["responses"]["V1RootMalformed"];
            500: components["responses"]["Internal"];
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Vary: components["headers"]["Vary"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                    "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Me"];
                };
            };
            400: components["responses"]["V1MalformedQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    listMakes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The visible makes. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Vary: components["headers"]["Vary"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                    "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MakeList"];
                };
            };
            400: components["responses"]["V1MalformedQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    getMake: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Make slug.
                 * @example aurelia
                 */
                make: components["parameters"]["make"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The make and its visible models. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Vary: components["headers"]["Vary"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                    "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelList"];
                };
            };
            400: components["responses"]["MalformedPath"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["CatalogNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    listModels: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Make slug.
                 * @example aurelia
                 */
                make: components["parameters"]["make"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The make and its visible models. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Vary: components["headers"]["Vary"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                    "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelList"];
                };
            };
            400: components["responses"]["MalformedPath"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["CatalogNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    listYears: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Make slug.
                 * @example aurelia
                 */
                make: components["parameters"]["make"];
                /**
                 * @description Model slug.
                 * @example vento
                 */
                model: components["parameters"]["model"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The years. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Vary: components["headers"]["Vary"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                    "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["YearList"];
                };
            };
            400: components["responses"]["MalformedPath"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["CatalogNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    getYear: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Make slug.
                 * @example aurelia
                 */
                make: components["parameters"]["make"];
                /**
                 * @description Model slug.
                 * @example vento
                 */
                model: components["parameters"]["model"];
                /**
                 * @description The year number, four digits (anything else is 404).
                 * @example 2023
                 */
                year: components["parameters"]["year"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One vehicle with its views, or the variant choices. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Vary: components["headers"]["Vary"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                    "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["YearDetail"];
                };
            };
            400: components["responses"]["MalformedPath"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["CatalogNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    getVariantOrImage: {
        parameters: {
            query?: {
                /**
                 * @description A named colour (case-insensitive: red, blue, green, white, black, silver, yellow, orange) or a hex value of 3 or 6 digits with or without a leading `#` (send `#` as `%23`). Invalid: 400.
                 * @example red
                 */
                color?: components["parameters"]["color"];
                /** @description Studio shadow, a boolean-like value: `true`, `1`, `false` or `0` (case-insensitive, so `TRUE` too). A client may send a boolean (serialised as `true`/`false`). Anything else, the empty value included, is 400. */
                shadow?: components["parameters"]["shadow"];
                /**
                 * @description EU-style registration text drawn on the view's plate quad. Normalised (Unicode NFC, leading and trailing spaces removed, runs of spaces collapsed to one) and checked before upper-casing: 1 to 12 characters of A–Z, Ä, Ö, Ü (either case), digits, spaces and hyphens, starting with a letter or digit; a tab, a line break, another Unicode space or a letter that only upper-cases into A–Z (ß, ı, ſ) is refused. Then upper-cased (`^[A-Z0-9ÄÖÜ][A-Z0-9ÄÖÜ -]*$`). Otherwise 400. `options.plate` echoes the text as requested. On a view without a plate quad the plate is not drawn and a PLATE_UNMAPPED warning is added.
                 * @example AB 123
                 */
                plate?: components["parameters"]["plate"];
                /** @description `webp`, `png` or `jpeg` (case-insensitive; `jpg` is not accepted). Invalid: 400; valid but not in the contract's `allowed_formats`: 403. */
                format?: components["parameters"]["format"];
                /**
                 * @description Pixels. An optionally signed integer of any number of digits (`^[+-]?\d+$`); anything else (decimals, exponents, empty) is 400 "Invalid width: must be an integer number of pixels". The value is clamped into 200..2400, never rejected for its size (`1234567890` → 2400, `-5` → 200, `0000001600` → 1600).
                 * @example 800
                 */
                width?: components["parameters"]["width"];
                /** @description `studio` (default): the studio backdrop of the shot. `transparent`: the car and its shadow on a transparent canvas (straight alpha; the shadow is partial opacity, glass lets the page show through). Only with `format` webp or png (jpeg answers 400 `bad_request`), and only for views whose asset set carries a coverage layer (else 400 `bad_request`). Part of the signed URL, the cache key and the ETag. */
                background?: components["parameters"]["background"];
                /** @description `studio` (default): the whole studio shot inside the frame (at the default aspect, 16:9, exactly the shot; at another aspect the shot is fitted inside the frame, centred, and the studio backdrop's gradient, or transparency, fills the rest). `fit`: the vehicle's bounding box (from the view's coverage layer) is scaled so that its limiting side fills the frame less twice the margin, centred horizontally, with its ground line on the bottom margin, so the ground line is at the same height in every view (`top_down`: centred vertically). `fit` needs a coverage layer (else 400). Case-insensitive. Part of the signed URL, the cache key and the ETag. */
                framing?: components["parameters"]["framing"];
                /** @description With `framing=fit`: the margin in percent of the output's width (left and right) and of its height (top and bottom). An integer 0..40, refused (400) otherwise; ignored by `studio` framing. */
                margin?: components["parameters"]["margin"];
                /** @description The output's aspect ratio: the height is `round(width / aspect)`. Other values: 400. */
                aspect?: components["parameters"]["aspect"];
            };
            header?: never;
            path: {
                /**
                 * @description Make slug.
                 * @example aurelia
                 */
                make: components["parameters"]["make"];
                /**
                 * @description Model slug.
                 * @example vento
                 */
                model: components["parameters"]["model"];
                /**
                 * @description The year number, four digits (anything else is 404).
                 * @example 2023
                 */
                year: components["parameters"]["year"];
                /** @description A view id (one of the nine) asks for an image; anything else is taken as a variant slug (variant slugs never equal a view id). */
                variantOrView: components["parameters"]["variantOrView"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `VehicleViews` for a variant slug, `ImageRender` for a view id. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Vary: components["headers"]["Vary"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                    "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["YearChild"];
                };
            };
            400: components["responses"]["ImageBadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["ForbiddenImage"];
            404: components["responses"]["ImageNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    getVariantImage: {
        parameters: {
            query?: {
                /**
                 * @description A named colour (case-insensitive: red, blue, green, white, black, silver, yellow, orange) or a hex value of 3 or 6 digits with or without a leading `#` (send `#` as `%23`). Invalid: 400.
                 * @example red
                 */
                color?: components["parameters"]["color"];
                /** @description Studio shadow, a boolean-like value: `true`, `1`, `false` or `0` (case-insensitive, so `TRUE` too). A client may send a boolean (serialised as `true`/`false`). Anything else, the empty value included, is 400. */
                shadow?: components["parameters"]["shadow"];
                /**
                 * @description EU-style registration text drawn on the view's plate quad. Normalised (Unicode NFC, leading and trailing spaces removed, runs of spaces collapsed to one) and checked before upper-casing: 1 to 12 characters of A–Z, Ä, Ö, Ü (either case), digits, spaces and hyphens, starting with a letter or digit; a tab, a line break, another Unicode space or a letter that only upper-cases into A–Z (ß, ı, ſ) is refused. Then upper-cased (`^[A-Z0-9ÄÖÜ][A-Z0-9ÄÖÜ -]*$`). Otherwise 400. `options.plate` echoes the text as requested. On a view without a plate quad the plate is not drawn and a PLATE_UNMAPPED warning is added.
                 * @example AB 123
                 */
                plate?: components["parameters"]["plate"];
                /** @description `webp`, `png` or `jpeg` (case-insensitive; `jpg` is not accepted). Invalid: 400; valid but not in the contract's `allowed_formats`: 403. */
                format?: components["parameters"]["format"];
                /**
                 * @description Pixels. An optionally signed integer of any number of digits (`^[+-]?\d+$`); anything else (decimals, exponents, empty) is 400 "Invalid width: must be an integer number of pixels". The value is clamped into 200..2400, never rejected for its size (`1234567890` → 2400, `-5` → 200, `0000001600` → 1600).
                 * @example 800
                 */
                width?: components["parameters"]["width"];
                /** @description `studio` (default): the studio backdrop of the shot. `transparent`: the car and its shadow on a transparent canvas (straight alpha; the shadow is partial opacity, glass lets the page show through). Only with `format` webp or png (jpeg answers 400 `bad_request`), and only for views whose asset set carries a coverage layer (else 400 `bad_request`). Part of the signed URL, the cache key and the ETag. */
                background?: components["parameters"]["background"];
                /** @description `studio` (default): the whole studio shot inside the frame (at the default aspect, 16:9, exactly the shot; at another aspect the shot is fitted inside the frame, centred, and the studio backdrop's gradient, or transparency, fills the rest). `fit`: the vehicle's bounding box (from the view's coverage layer) is scaled so that its limiting side fills the frame less twice the margin, centred horizontally, with its ground line on the bottom margin, so the ground line is at the same height in every view (`top_down`: centred vertically). `fit` needs a coverage layer (else 400). Case-insensitive. Part of the signed URL, the cache key and the ETag. */
                framing?: components["parameters"]["framing"];
                /** @description With `framing=fit`: the margin in percent of the output's width (left and right) and of its height (top and bottom). An integer 0..40, refused (400) otherwise; ignored by `studio` framing. */
                margin?: components["parameters"]["margin"];
                /** @description The output's aspect ratio: the height is `round(width / aspect)`. Other values: 400. */
                aspect?: components["parameters"]["aspect"];
            };
            header?: never;
            path: {
                /**
                 * @description Make slug.
                 * @example aurelia
                 */
                make: components["parameters"]["make"];
                /**
                 * @description Model slug.
                 * @example vento
                 */
                model: components["parameters"]["model"];
                /**
                 * @description The year number, four digits (anything else is 404).
                 * @example 2023
                 */
                year: components["parameters"]["year"];
                /**
                 * @description Variant slug (from the variant choices of the year).
                 * @example gt
                 */
                variant: components["parameters"]["variant"];
                /**
                 * @description One of the nine view ids; it must be published for the vehicle.
                 * @example front
                 */
                view: components["parameters"]["view"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The image render answer. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Vary: components["headers"]["Vary"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                    "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImageRender"];
                };
            };
            400: components["responses"]["ImageBadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["ForbiddenImage"];
            404: components["responses"]["ImageNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    search: {
        parameters: {
            query: {
                /**
                 * @description Search text, 1 to 200 characters, not blank (missing or blank: 400), without control characters (C0, DEL, C1: 400), given once (twice: 400 "Parameter q must be given once"). Split into letter/digit tokens, case- and accent-insensitive; every token (the first 8 distinct ones) must be a prefix of a make, model, variant (name or slug) or year token of the vehicle. Broken percent-encoding in the query string (`%zz`, bytes that are not UTF-8) is 400 "The request is malformed", like in a path.
                 * @example vento 2024
                 */
                q: components["parameters"]["q"];
                /** @description Maximum number of results: a positive integer of up to 9 digits (otherwise 400); at most 100 results are returned (a larger value is clamped to 100, not refused). Given twice: 400 "Parameter limit must be given once". */
                limit?: components["parameters"]["limit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The matches. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Vary: components["headers"]["Vary"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                    "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchResults"];
                };
            };
            400: components["responses"]["SearchBadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    listColors: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The eight named colours in the spec's order. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Vary: components["headers"]["Vary"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                    "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ColorList"];
                };
            };
            400: components["responses"]["V1MalformedQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    listViews: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The nine studio views in the spec's order. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Vary: components["headers"]["Vary"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                    "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ViewList"];
                };
            };
            400: components["responses"]["V1MalformedQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    downloadImage: {
        parameters: {
            query?: never;
            header?: {
                /** @description An ETag from an earlier answer (`*`, lists and `W/` prefixes accepted). */
                "If-None-Match"?: string;
            };
            path: {
                /** @description The signed token (three base64url segments). */
                token: string;
                /** @description The format the token was signed for (`jpg` is an alias of `jpeg`); another format is 400. */
                ext: "webp" | "png" | "jpeg" | "jpg";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The image bytes. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "Content-Length": components["headers"]["Content-Length"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin-Any"];
                    "Cross-Origin-Resource-Policy": components["headers"]["Cross-Origin-Resource-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "image/webp": unknown;
                    "image/png": unknown;
                    "image/jpeg": unknown;
                };
            };
            /** @description Not modified (`If-None-Match` matched). */
            304: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin-Any"];
                    "Cross-Origin-Resource-Policy": components["headers"]["Cross-Origin-Resource-Policy"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed token, a format other than the signed one, or a render request the renderer refuses. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin-Any"];
                    "Cross-Origin-Resource-Policy": components["headers"]["Cross-Origin-Resource-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Expired, tampered, wrongly signed (another algorithm or `none`) token, or an unknown `kid`; a token without a grant (issued before grants); or the key that asked for it is revoked. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin-Any"];
                    "Cross-Origin-Resource-Policy": components["headers"]["Cross-Origin-Resource-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            403: components["responses"]["DownloadForbidden"];
            /** @description The file name is not `<token>.<ext>`, or the renderer lacks the asset. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin-Any"];
                    "Cross-Origin-Resource-Policy": components["headers"]["Cross-Origin-Resource-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["DownloadTooManyRequests"];
            500: components["responses"]["Internal"];
            /** @description No renderer configured or reachable (`unavailable`; also a download refused for a full wait while no renderer can be reached, and any call while the database cannot be reached, both with `Retry-After`), or the renderer is busy (`resource_exhausted`). Retry later. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin-Any"];
                    "Cross-Origin-Resource-Policy": components["headers"]["Cross-Origin-Resource-Policy"];
                    /**
                     * @description Seconds to wait: 5 while no renderer or no database can be reached (absent when no renderer is configured at all).
                     * @example 5
                     */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The render took longer than `RENDER_TIMEOUT_MS` (default 15000). */
            504: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin-Any"];
                    "Cross-Origin-Resource-Policy": components["headers"]["Cross-Origin-Resource-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    headImage: {
        parameters: {
            query?: never;
            header?: {
                /** @description An ETag from an earlier answer (`*`, lists and `W/` prefixes accepted). */
                "If-None-Match"?: string;
            };
            path: {
                /** @description The signed token (three base64url segments). */
                token: string;
                /** @description The format the token was signed for (`jpg` is an alias of `jpeg`); another format is 400. */
                ext: "webp" | "png" | "jpeg" | "jpg";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The image bytes. */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "Content-Length": components["headers"]["Content-Length"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin-Any"];
                    "Cross-Origin-Resource-Policy": components["headers"]["Cross-Origin-Resource-Policy"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not modified (`If-None-Match` matched). */
            304: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin-Any"];
                    "Cross-Origin-Resource-Policy": components["headers"]["Cross-Origin-Resource-Policy"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed token, a format other than the signed one, or a render request the renderer refuses. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin-Any"];
                    "Cross-Origin-Resource-Policy": components["headers"]["Cross-Origin-Resource-Policy"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Expired, tampered, wrongly signed (another algorithm or `none`) token, or an unknown `kid`; a token without a grant (issued before grants); or the key that asked for it is revoked. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin-Any"];
                    "Cross-Origin-Resource-Policy": components["headers"]["Cross-Origin-Resource-Policy"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            403: components["responses"]["DownloadForbidden"];
            /** @description The file name is not `<token>.<ext>`, or the renderer lacks the asset. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin-Any"];
                    "Cross-Origin-Resource-Policy": components["headers"]["Cross-Origin-Resource-Policy"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            429: components["responses"]["DownloadTooManyRequests"];
            500: components["responses"]["Internal"];
            /** @description No renderer configured or reachable (`unavailable`; also a download refused for a full wait while no renderer can be reached, and any call while the database cannot be reached, both with `Retry-After`), or the renderer is busy (`resource_exhausted`). Retry later. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin-Any"];
                    "Cross-Origin-Resource-Policy": components["headers"]["Cross-Origin-Resource-Policy"];
                    /**
                     * @description Seconds to wait: 5 while no renderer or no database can be reached (absent when no renderer is configured at all).
                     * @example 5
                     */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The render took longer than `RENDER_TIMEOUT_MS` (default 15000). */
            504: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin-Any"];
                    "Cross-Origin-Resource-Policy": components["headers"]["Cross-Origin-Resource-Policy"];
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    healthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The process serves HTTP. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            400: components["responses"]["MalformedRequest"];
        };
    };
    readyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ready"];
                };
            };
            400: components["responses"]["MalformedRequest"];
            /** @description Not ready. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ready"];
                };
            };
        };
    };
    openapi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            400: components["responses"]["MalformedRequest"];
        };
    };
    docsPage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML page. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            400: components["responses"]["MalformedRequest"];
        };
    };
    adminListCategories: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description All categories. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CategoryList"];
                };
            };
            400: components["responses"]["MalformedRequest"];
            401: components["responses"]["AdminUnauthorized"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminListOrganizations: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description All organizations, oldest first. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationList"];
                };
            };
            400: components["responses"]["MalformedRequest"];
            401: components["responses"]["AdminUnauthorized"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminCreateOrganization: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Acme"
                 *     }
                 */
                "application/json": components["schemas"]["OrganizationInput"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "org_PcUqUNW6PLD9eRDQ",
                     *       "name": "Acme"
                     *     }
                     */
                    "application/json": components["schemas"]["Organization"];
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminGetOrganization: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Organization id.
                 * @example org_PcUqUNW6PLD9eRDQ
                 */
                org: components["parameters"]["org"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The organization. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationDetail"];
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["AdminNotFound"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminGetContract: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Organization id.
                 * @example org_PcUqUNW6PLD9eRDQ
                 */
                org: components["parameters"]["org"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The contract. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "organization_id": "org_PcUqUNW6PLD9eRDQ",
                     *       "categories": [
                     *         "passenger-car"
                     *       ],
                     *       "allowed_formats": [
                     *         "webp"
                     *       ],
                     *       "rpm_limit": 60,
                     *       "monthly_quota": 10000,
                     *       "active": true,
                     *       "allowed_origins": [
                     *         "https://app.example.com"
                     *       ],
                     *       "updated_at": "2026-11-21T12:27:37.908Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Contract"];
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["AdminNotFound"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminPutContract: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Organization id.
                 * @example org_PcUqUNW6PLD9eRDQ
                 */
                org: components["parameters"]["org"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "categories": [
                 *         "passenger-car"
                 *       ],
                 *       "allowed_formats": [
                 *         "webp"
                 *       ],
                 *       "rpm_limit": 60,
                 *       "monthly_quota": 10000,
                 *       "active": true
                 *     }
                 */
                "application/json": components["schemas"]["ContractInput"];
            };
        };
        responses: {
            /** @description The contract. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "organization_id": "org_PcUqUNW6PLD9eRDQ",
                     *       "categories": [
                     *         "passenger-car"
                     *       ],
                     *       "allowed_formats": [
                     *         "webp"
                     *       ],
                     *       "rpm_limit": 60,
                     *       "monthly_quota": 10000,
                     *       "active": true,
                     *       "allowed_origins": [
                     *         "https://app.example.com"
                     *       ],
                     *       "updated_at": "2026-11-21T12:27:37.908Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Contract"];
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["AdminNotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminCreateKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Organization id.
                 * @example org_PcUqUNW6PLD9eRDQ
                 */
                org: components["parameters"]["org"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "name": "ci"
                 *     }
                 */
                "application/json": components["schemas"]["KeyInput"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedKey"];
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["AdminNotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminRevokeKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description API key id.
                 * @example key_LV72zkFkx2IgDtz7
                 */
                id: components["parameters"]["keyId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyRevoked"];
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["AdminNotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminAddMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Organization id.
                 * @example org_PcUqUNW6PLD9eRDQ
                 */
                org: components["parameters"]["org"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ana@example.com"
                 *     }
                 */
                "application/json": components["schemas"]["MemberInput"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemberCreated"];
                };
            };
            /** @description Invalid body, or the email (case-insensitive) is already a member. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["AdminNotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminBanMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Member id. */
                id: components["parameters"]["memberId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Banned. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemberBanState"];
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["AdminNotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminUnbanMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Member id. */
                id: components["parameters"]["memberId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Unbanned. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemberBanState"];
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["AdminNotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminCreateSignInLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Member id. */
                id: components["parameters"]["memberId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The link; give it to the member (it is shown only here). */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * Format: uri
                         * @example https://images.example.com/dashboard/sign-in#token=…
                         */
                        url: string;
                        /** Format: date-time */
                        expires_at: string;
                    };
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            /** @description A member of the organization is banned. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "Organization access is disabled"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["AdminNotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminUsage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Organization id.
                 * @example org_PcUqUNW6PLD9eRDQ
                 */
                org: components["parameters"]["org"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Usage. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "month": "2026-11",
                     *       "requests": 3
                     *     }
                     */
                    "application/json": components["schemas"]["Usage"];
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["AdminNotFound"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminPublishVehicle: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Vehicle id (from catalog answers, `vehicle.id`).
                 * @example veh_Ks5ljWWY2M-wQQdJ
                 */
                id: components["parameters"]["vehicleId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "published": false
                 *     }
                 */
                "application/json": components["schemas"]["PublishInput"];
            };
        };
        responses: {
            /** @description New state. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VehiclePublished"];
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["AdminNotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminPublishView: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Vehicle id (from catalog answers, `vehicle.id`).
                 * @example veh_Ks5ljWWY2M-wQQdJ
                 */
                id: components["parameters"]["vehicleId"];
                /** @description View id. */
                view: components["parameters"]["adminView"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "published": false
                 *     }
                 */
                "application/json": components["schemas"]["PublishInput"];
            };
        };
        responses: {
            /** @description New state. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ViewPublished"];
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["AdminNotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminImportCatalog: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CatalogFile"];
                /**
                 * @example make_slug,make_name,model_slug,model_name,year,variant_slug,variant_name,category_slug,category_name,asset_set,published,unpublished_views
                 *     aurelia,Aurelia,vento,Vento,2023,,,passenger-car,Passenger car,synthetic,true,
                 */
                "text/csv": string;
            };
        };
        responses: {
            /** @description What was written. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "imported": {
                     *         "categories": 1,
                     *         "makes": 1,
                     *         "models": 1,
                     *         "vehicles": 1,
                     *         "views": 9
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["ImportSummary"];
                };
            };
            /** @description Invalid file: the message lists up to 50 problems, each with its JSON path or CSV line and column. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["AdminUnauthorized"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminExportCatalog: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The catalog. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CatalogFile"];
                };
            };
            400: components["responses"]["MalformedRequest"];
            401: components["responses"]["AdminUnauthorized"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    getVehicleImages: {
        parameters: {
            query?: {
                /**
                 * @description View ids separated by commas (e.g. `front,rear`), answered in that order; a repeated id is answered once. Omitted: every published view of the vehicle, in catalog order. An id that is not one of the nine is 400; a listed view that is not published is 404 for the whole call.
                 * @example front_left,rear
                 */
                views?: components["parameters"]["views"];
                /**
                 * @description A named colour (case-insensitive: red, blue, green, white, black, silver, yellow, orange) or a hex value of 3 or 6 digits with or without a leading `#` (send `#` as `%23`). Invalid: 400.
                 * @example red
                 */
                color?: components["parameters"]["color"];
                /** @description Studio shadow, a boolean-like value: `true`, `1`, `false` or `0` (case-insensitive, so `TRUE` too). A client may send a boolean (serialised as `true`/`false`). Anything else, the empty value included, is 400. */
                shadow?: components["parameters"]["shadow"];
                /**
                 * @description EU-style registration text drawn on the view's plate quad. Normalised (Unicode NFC, leading and trailing spaces removed, runs of spaces collapsed to one) and checked before upper-casing: 1 to 12 characters of A–Z, Ä, Ö, Ü (either case), digits, spaces and hyphens, starting with a letter or digit; a tab, a line break, another Unicode space or a letter that only upper-cases into A–Z (ß, ı, ſ) is refused. Then upper-cased (`^[A-Z0-9ÄÖÜ][A-Z0-9ÄÖÜ -]*$`). Otherwise 400. `options.plate` echoes the text as requested. On a view without a plate quad the plate is not drawn and a PLATE_UNMAPPED warning is added.
                 * @example AB 123
                 */
                plate?: components["parameters"]["plate"];
                /** @description `webp`, `png` or `jpeg` (case-insensitive; `jpg` is not accepted). Invalid: 400; valid but not in the contract's `allowed_formats`: 403. */
                format?: components["parameters"]["format"];
                /**
                 * @description Pixels. An optionally signed integer of any number of digits (`^[+-]?\d+$`); anything else (decimals, exponents, empty) is 400 "Invalid width: must be an integer number of pixels". The value is clamped into 200..2400, never rejected for its size (`1234567890` → 2400, `-5` → 200, `0000001600` → 1600).
                 * @example 800
                 */
                width?: components["parameters"]["width"];
                /** @description `studio` (default): the studio backdrop of the shot. `transparent`: the car and its shadow on a transparent canvas (straight alpha; the shadow is partial opacity, glass lets the page show through). Only with `format` webp or png (jpeg answers 400 `bad_request`), and only for views whose asset set carries a coverage layer (else 400 `bad_request`). Part of the signed URL, the cache key and the ETag. */
                background?: components["parameters"]["background"];
                /** @description `studio` (default): the whole studio shot inside the frame (at the default aspect, 16:9, exactly the shot; at another aspect the shot is fitted inside the frame, centred, and the studio backdrop's gradient, or transparency, fills the rest). `fit`: the vehicle's bounding box (from the view's coverage layer) is scaled so that its limiting side fills the frame less twice the margin, centred horizontally, with its ground line on the bottom margin, so the ground line is at the same height in every view (`top_down`: centred vertically). `fit` needs a coverage layer (else 400). Case-insensitive. Part of the signed URL, the cache key and the ETag. */
                framing?: components["parameters"]["framing"];
                /** @description With `framing=fit`: the margin in percent of the output's width (left and right) and of its height (top and bottom). An integer 0..40, refused (400) otherwise; ignored by `studio` framing. */
                margin?: components["parameters"]["margin"];
                /** @description The output's aspect ratio: the height is `round(width / aspect)`. Other values: 400. */
                aspect?: components["parameters"]["aspect"];
            };
            header?: never;
            path: {
                /**
                 * @description Vehicle id, as catalog answers give it (`vehicle.id`, `variants[].vehicle_id`).
                 * @example veh_Ks5ljWWY2M-wQQdJ
                 */
                vehicle_id: components["parameters"]["vehicle_id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The signed images. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Vary: components["headers"]["Vary"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                    "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BatchImages"];
                };
            };
            400: components["responses"]["BatchBadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["ForbiddenImage"];
            404: components["responses"]["BatchNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    getUsage: {
        parameters: {
            query?: {
                /**
                 * @description A UTC month `YYYY-MM` (2000 to 2100); default the current one.
                 * @example 2026-11
                 */
                month?: components["parameters"]["month"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The month's usage. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Vary: components["headers"]["Vary"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                    "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageReport"];
                };
            };
            400: components["responses"]["UsageBadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    mcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    jsonrpc: "2.0";
                    id?: string | number;
                    method?: string;
                    params?: Record<string, never>;
                    result?: Record<string, never>;
                    error?: Record<string, never>;
                };
            };
        };
        responses: {
            /** @description The JSON-RPC answer. A tool's result is `{ content: [{ type: "text", text }] }` with the `/v1` answer as JSON text, or with `isError: true` and the API's `{"error", "message"}` as the text. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        jsonrpc: "2.0";
                        id?: string | number;
                        method?: string;
                        params?: Record<string, never>;
                        result?: Record<string, never>;
                        error?: Record<string, never>;
                    };
                };
            };
            /** @description A notification or response from the client, accepted (no body). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The body is not JSON, or the query's percent-encoding is broken. (A JSON-RPC message the protocol refuses is answered by the protocol, with a JSON-RPC error.) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No key (`x-api-key` or `Authorization: Bearer`). An unknown or revoked key is refused per tool call, as a tool error `unauthorized`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Accept` does not name both `application/json` and `text/event-stream` (a JSON-RPC error body). */
            406: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        jsonrpc: "2.0";
                        id?: string | number;
                        method?: string;
                        params?: Record<string, never>;
                        result?: Record<string, never>;
                        error?: Record<string, never>;
                    };
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The body is over 64 KB (after decompression), or it inflates more than `MAX_COMPRESSION_RATIO` times. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Content-Type` is not `application/json` (a JSON-RPC error body). */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        jsonrpc: "2.0";
                        id?: string | number;
                        method?: string;
                        params?: Record<string, never>;
                        result?: Record<string, never>;
                        error?: Record<string, never>;
                    };
                };
            };
            500: components["responses"]["Internal"];
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /** @description An event id: only events written after it. Absent: from the oldest kept (30 days). */
                after?: components["parameters"]["eventsAfter"];
                /** @description At most this many events (1 or more; a larger value than 100 is clamped to 100, not refused). */
                limit?: components["parameters"]["eventsLimit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The events after `after`. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Vary: components["headers"]["Vary"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                    "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventFeed"];
                };
            };
            400: components["responses"]["EventsBadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminListWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Organization id.
                 * @example org_PcUqUNW6PLD9eRDQ
                 */
                org: components["parameters"]["org"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoints. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookList"];
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["WebhookNotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminCreateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Organization id.
                 * @example org_PcUqUNW6PLD9eRDQ
                 */
                org: components["parameters"]["org"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://hooks.example.com/vehicle-images",
                 *       "events": [
                 *         "quota.threshold"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["WebhookInput"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedWebhook"];
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            403: components["responses"]["WebhookForbidden"];
            404: components["responses"]["WebhookNotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminDeleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Webhook endpoint id.
                 * @example whk_3c9Qm1pZb7u4K2aLx0VdNw
                 */
                id: components["parameters"]["webhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeleted"];
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["WebhookNotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminRotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Webhook endpoint id.
                 * @example whk_3c9Qm1pZb7u4K2aLx0VdNw
                 */
                id: components["parameters"]["webhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new secret. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookSecret"];
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["WebhookNotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    adminListWebhookDeliveries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Webhook endpoint id.
                 * @example whk_3c9Qm1pZb7u4K2aLx0VdNw
                 */
                id: components["parameters"]["webhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The deliveries. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            400: components["responses"]["AdminBadRequest"];
            401: components["responses"]["AdminUnauthorized"];
            404: components["responses"]["WebhookNotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["AdminTooManyRequests"];
            500: components["responses"]["Internal"];
        };
    };
    getVehicleSpin: {
        parameters: {
            query?: {
                /**
                 * @description How many frames, evenly spaced from yaw 0: 8, 12, 24, 36 or 72 (anything else is 400 "Invalid frames: use 8, 12, 24, 36, 72").
                 * @example 12
                 */
                frames?: components["parameters"]["frames"];
                /**
                 * @description A named colour (case-insensitive: red, blue, green, white, black, silver, yellow, orange) or a hex value of 3 or 6 digits with or without a leading `#` (send `#` as `%23`). Invalid: 400.
                 * @example red
                 */
                color?: components["parameters"]["color"];
                /** @description Studio shadow, a boolean-like value: `true`, `1`, `false` or `0` (case-insensitive, so `TRUE` too). A client may send a boolean (serialised as `true`/`false`). Anything else, the empty value included, is 400. */
                shadow?: components["parameters"]["shadow"];
                /**
                 * @description EU-style registration text drawn on the view's plate quad. Normalised (Unicode NFC, leading and trailing spaces removed, runs of spaces collapsed to one) and checked before upper-casing: 1 to 12 characters of A–Z, Ä, Ö, Ü (either case), digits, spaces and hyphens, starting with a letter or digit; a tab, a line break, another Unicode space or a letter that only upper-cases into A–Z (ß, ı, ſ) is refused. Then upper-cased (`^[A-Z0-9ÄÖÜ][A-Z0-9ÄÖÜ -]*$`). Otherwise 400. `options.plate` echoes the text as requested. On a view without a plate quad the plate is not drawn and a PLATE_UNMAPPED warning is added.
                 * @example AB 123
                 */
                plate?: components["parameters"]["plate"];
                /** @description `webp`, `png` or `jpeg` (case-insensitive; `jpg` is not accepted). Invalid: 400; valid but not in the contract's `allowed_formats`: 403. */
                format?: components["parameters"]["format"];
                /**
                 * @description Pixels of each frame. The image call's integer rule (anything but `^[+-]?\d+$` is 400 "Invalid width: must be an integer number of pixels"), the spin's range: clamped into 200..1600, never rejected for its size.
                 * @example 400
                 */
                width?: components["parameters"]["spin_width"];
                /** @description `studio` (default): the studio backdrop of the shot. `transparent`: the car and its shadow on a transparent canvas (straight alpha; the shadow is partial opacity, glass lets the page show through). Only with `format` webp or png (jpeg answers 400 `bad_request`), and only for views whose asset set carries a coverage layer (else 400 `bad_request`). Part of the signed URL, the cache key and the ETag. */
                background?: components["parameters"]["background"];
                /** @description `studio` (default): the whole studio shot inside the frame (at the default aspect, 16:9, exactly the shot; at another aspect the shot is fitted inside the frame, centred, and the studio backdrop's gradient, or transparency, fills the rest). `fit`: the vehicle's bounding box (from the view's coverage layer) is scaled so that its limiting side fills the frame less twice the margin, centred horizontally, with its ground line on the bottom margin, so the ground line is at the same height in every view (`top_down`: centred vertically). `fit` needs a coverage layer (else 400). Case-insensitive. Part of the signed URL, the cache key and the ETag. */
                framing?: components["parameters"]["framing"];
                /** @description With `framing=fit`: the margin in percent of the output's width (left and right) and of its height (top and bottom). An integer 0..40, refused (400) otherwise; ignored by `studio` framing. */
                margin?: components["parameters"]["margin"];
                /** @description The output's aspect ratio: the height is `round(width / aspect)`. Other values: 400. */
                aspect?: components["parameters"]["aspect"];
            };
            header?: never;
            path: {
                /**
                 * @description Vehicle id, as catalog answers give it (`vehicle.id`, `variants[].vehicle_id`).
                 * @example veh_Ks5ljWWY2M-wQQdJ
                 */
                vehicle_id: components["parameters"]["vehicle_id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The signed frames, in order of yaw. */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Vary: components["headers"]["Vary"];
                    "Access-Control-Allow-Origin": components["headers"]["Access-Control-Allow-Origin"];
                    "Access-Control-Expose-Headers": components["headers"]["Access-Control-Expose-Headers"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Spin"];
                };
            };
            400: components["responses"]["SpinBadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["SpinForbidden"];
            404: components["responses"]["SpinNotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["Internal"];
            503: components["responses"]["SpinUnavailable"];
        };
    };
    receiveEvent: {
        parameters: {
            query?: never;
            header: {
                "webhook-id": string;
                "webhook-timestamp": string;
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Event"];
            };
        };
        responses: {
            /** @description The endpoint is disabled. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Delivered. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}

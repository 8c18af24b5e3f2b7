# syntax=docker/dockerfile:1
# Multi-stage image on the official Node 24 base. Written with care but not built here:
# no Docker engine runs on the development machines (see docs/OPERATIONS.md "Docker").

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The `node` dev dependency is not needed in the image (the base already is Node 24).
RUN npm ci

FROM deps AS build
COPY . .
RUN node scripts/build.ts

FROM node:24-bookworm-slim AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATABASE_URL=/data/db
WORKDIR /app
COPY --from=prod-deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/build ./build
# The server runs as one bundle with its chunks and migrations beside it (build/server.js,
# build/server-chunks: ADR 0024).
COPY --chown=node:node package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/readyz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# The node flags come from the one place npm start and the benchmark read too (package.json config.node_flags).
CMD ["sh", "-c", "exec node $(node -p \"require('./package.json').config?.node_flags ?? ''\") build/server.js"]

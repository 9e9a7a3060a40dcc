# Build stage: compile TypeScript with the dev toolchain.
# Node 24: the active LTS line (Node 20 reached end of life in April 2026).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY vendor ./vendor
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workers ./workers
RUN npm run build

# Runtime stage: production dependencies and compiled code only. The same image runs the API
# (default command) and the worker (`node --heap-growing-percent=50 dist/workers/main.js`).
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY vendor ./vendor
# The in-memory test engine is an optional dependency (Linux x64 only, ~20 MB) that this image never
# runs: its processes use MONGODB_URI. npm cannot omit it alone (--omit=optional would take sharp's
# native binaries too), so it is removed after the install.
RUN npm ci --omit=dev --no-audit --no-fund && rm -rf node_modules/@jongodb && npm cache clean --force
COPY --from=build /app/dist ./dist
# The dashboard's browser assets (/app/assets), served as they are.
COPY web ./web
# data/secrets: generated secrets (docker compose mounts a volume there; it copies this owner).
RUN mkdir -p /app/data/logos /app/data/secrets && chmod 700 /app/data/secrets && chown -R node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--heap-growing-percent=50", "dist/src/main.js"]

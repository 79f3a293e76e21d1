/**
 * Where the gateway's API is mounted. A module of its own with no imports, so the route files and edge helpers that
 * build or parse API paths can read it without importing the app that mounts them (core/app.ts imports them all).
 */
export const API_PREFIX = "/api/v1";

/** Stylesheets imported for their effect: Bun's HTML bundler puts them in the page's CSS. */
declare module "*.css";

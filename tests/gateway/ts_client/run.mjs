// Runs the compiled client against a live gateway: node run.mjs http://127.0.0.1:PORT
import { playOverRest } from "./client.js";

const said = await playOverRest(process.argv[2]);
console.log(JSON.stringify(said));

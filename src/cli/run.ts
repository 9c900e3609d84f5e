// Executable entry of the CLI (bin/parla.js imports the compiled copy).
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));

import type { Command } from 'commander';
import { DEFAULT_URL, currentToken, defaultTokenFile, deviceLogin, saveToken } from './device-login.ts';

/**
 * `carebridge login [--url URL] [--save] [--token-file FILE]` and `carebridge token`
 * (issue 38, item 10). The prompt goes to stderr and the token alone to stdout, so
 * `TOKEN=$(npx carebridge login)` works.
 */
export function registerLogin(program: Command): void {
  program
    .command('login')
    .description('sign in from the terminal (OAuth device login) and print an access token')
    .option('--url <url>', 'the carebridge server', DEFAULT_URL)
    .option('--save', 'also save the token (and its refresh token) for `carebridge token`')
    .option('--token-file <file>', 'where --save writes', defaultTokenFile())
    .action(async (opts: { url: string; save?: boolean; tokenFile: string }) => {
      const url = new URL(opts.url).origin;
      const token = await deviceLogin({
        url,
        prompt: (p) => {
          process.stderr.write(`To sign in, open ${p.verificationUri}\nand enter the code ${p.userCode}\n`
            + (p.verificationUriComplete ? `(or open ${p.verificationUriComplete})\n` : '')
            + `Waiting for you to finish in the browser (the code works for ${Math.round(p.expiresIn / 60)} minutes)…\n`);
        },
      });
      if (opts.save) {
        await saveToken(opts.tokenFile, token);
        process.stderr.write(`Saved to ${opts.tokenFile} (readable by you only); print it with: npx carebridge token\n`);
      }
      process.stdout.write(`${token.accessToken}\n`);
    });

  program
    .command('token')
    .description('print the access token saved by `carebridge login --save` (renewed when expired)')
    .option('--token-file <file>', 'the saved token', defaultTokenFile())
    .action(async (opts: { tokenFile: string }) => {
      process.stdout.write(`${await currentToken(opts.tokenFile)}\n`);
    });
}

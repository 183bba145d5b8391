// The HTTP client keeps the contract over the real bundled server on a real socket.
import { describeOverlayClientContract } from './overlay-client-contract.ts';
import { httpWorld } from './contract-world.ts';

describeOverlayClientContract('HTTP, bundled server on a real socket', httpWorld);

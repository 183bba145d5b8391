// The in-process client keeps the contract over the real service on a temp SQLite database.
import { describeOverlayClientContract } from './overlay-client-contract.ts';
import { inProcessWorld } from './contract-world.ts';

describeOverlayClientContract('in-process, real service on SQLite', inProcessWorld);

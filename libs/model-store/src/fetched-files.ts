// What the model store takes (a model's files) and answers (verified files in its cache).
import { type ArtifactRef, type ExternalDataRef } from '@modelgate/contracts';

/** A model's files: the .onnx file, the external data files its graph reads and an image-to-text model's encoder. */
export interface ModelFiles {
  /** The model file (an image-to-text model's decoder). */
  artifact: ArtifactRef;
  /** Placed beside the model file under their names. @defaultValue [] */
  externalData?: readonly ExternalDataRef[] | undefined;
  /** image-to-text: the encoder graph, placed beside the model file as `encoder_model.onnx`. */
  encoder?: ArtifactRef | undefined;
}

/** A model ready for onnxruntime to open by path. */
export interface FetchedModel {
  /**
   * The model file: `<cacheDir>/sha256/<hex>` without external data or encoder, else
   * `<cacheDir>/models/<key>/model.onnx` beside its external data files and encoder.
   */
  path: string;
  /** With an encoder: `<cacheDir>/models/<key>/encoder_model.onnx`, in the directory of `path`. */
  encoderPath?: string;
  /** True when every file was already in the cache. */
  cached: boolean;
}

/** A verified artifact in the cache. */
export interface FetchedArtifact {
  /** `<cacheDir>/sha256/<hex>`. */
  path: string;
  /** Lower-case hex digest of the file. */
  sha256: string;
  bytes: number;
  /** True when the file was already in the cache and the source was not touched. */
  cached: boolean;
}

/** A verified bundle extracted in the cache. */
export interface FetchedBundle {
  /** `<cacheDir>/bundles/<hex>/`, holding the bundle's files. */
  dir: string;
  sha256: string;
  cached: boolean;
}

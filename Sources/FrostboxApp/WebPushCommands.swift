import FrostboxWebPush

/// `frostbox webpush keys`: a new VAPID key pair for a Web Push app.
public enum WebPushCommands {
    /// Writes a new key to `path` (mode 0600, never over an existing file) and returns the
    /// lines to print: the public key (the page's `applicationServerKey`) and the settings.
    public static func makeKeys(out path: String) throws(WebPushConfigurationError) -> [String] {
        let key = VAPIDKey.generate()
        try key.write(toNewFile: path)
        return [
            "wrote \(path) (mode 0600): keep it secret; pushes to every browser that subscribed with its public key are signed by it",
            "public key (applicationServerKey; also served at GET /v1/web-push/public-key): \(key.publicKeyBase64URL)",
            "configure it as: webpush.apps.<name>.vapid_key_path: \(path) and webpush.apps.<name>.subject: mailto:you@example.org",
        ]
    }
}

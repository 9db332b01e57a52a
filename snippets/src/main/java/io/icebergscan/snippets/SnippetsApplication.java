package io.icebergscan.snippets;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application the documentation's services belong to, as a reader's would. */
@SpringBootApplication
public class SnippetsApplication {

  public static void main(String[] args) {
    SpringApplication.run(SnippetsApplication.class, args);
  }
}
